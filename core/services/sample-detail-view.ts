import { FIELD_TYPE } from '../api/constants.js';
import type { PreviewValue, SampleDetail } from '../api/contract.js';
import { readDatasetCheck } from '../app/check-dataset.js';
import { classNamesFor, labelFieldOf, labelOf, manifestOf } from '../app/dataset-labels.js';
import type { DecodedImage } from '../fields/rgb-image-field.js';
import { Reader } from '../reader/reader.js';
import { isRemoteUrl } from '../remote/url.js';
import { previewTools, previewValue } from './dataset-views.js';
import { ServiceError } from './service-error.js';

/** Longest text value sent whole (a detail view shows the value, not an ellipsis). */
const MAX_TEXT = 100_000;
/** Images are sent at full resolution up to this side (sharp refuses larger PNGs anyway). */
const MAX_SIDE = 16384;

/**
 * `datasets.sample`: one sample in full for the detail view: a stored JPEG as it is (the
 * browser decodes it at full resolution), raw pixels as a PNG of the same size, every other
 * value as full text; where each value is stored (bytes, data page, file offset); and, from
 * a check kept beside this very file, the duplicate groups it belongs to and why it was flagged.
 */
export async function sampleDetail(path: string, index: number): Promise<SampleDetail> {
  const reader = await Reader.open(path);
  try {
    if (index >= reader.numSamples)
      throw new ServiceError(
        'BAD_REQUEST',
        `${reader.path}: sample ${index} does not exist (the file has ${reader.numSamples}: 0–${reader.numSamples - 1})`,
      );
    // A remote file: the sample's pages in parallel GETs first, so the reads below wait on none.
    await reader.prefetch([index]);
    const tools = previewTools(MAX_SIDE);
    const fields: SampleDetail['fields'] = [];
    for (const [f, { name, field }] of reader.fields.entries()) {
      const ref = reader.heapRef(index, f);
      let decoded: unknown;
      try {
        decoded = reader.readField(index, f);
      } catch (e) {
        fields.push({
          name,
          type: field.type,
          value: { kind: 'text', text: `cannot decode: ${(e as Error).message}` },
          storedBytes: ref?.size ?? 0,
          page: ref && ref.size > 0 ? Math.floor(ref.ptr / reader.pageSize) : null,
          offset: ref && ref.size > 0 ? ref.ptr : null,
        });
        continue;
      }
      let value: PreviewValue;
      if (field.type === FIELD_TYPE.rgbImage && (decoded as DecodedImage).mode === 'jpg') {
        const im = decoded as DecodedImage;
        value = {
          kind: 'image',
          mime: 'image/jpeg',
          base64: Buffer.from(im.stored).toString('base64'),
          width: im.width,
          height: im.height,
          mode: 'jpg',
        };
      } else if (field.type === FIELD_TYPE.rgbImage || field.type === FIELD_TYPE.videoClip)
        value = await previewValue(field.type, decoded, tools);
      else value = { kind: 'text', text: fullText(decoded) };
      fields.push({
        name,
        type: field.type,
        value,
        storedBytes: ref?.size ?? 0,
        page: ref && ref.size > 0 ? Math.floor(ref.ptr / reader.pageSize) : null,
        offset: ref && ref.size > 0 ? ref.ptr : null,
      });
    }
    const manifest = manifestOf(reader.path);
    const labelField = labelFieldOf(reader, manifest.status === 'ok' ? manifest.manifest : null);
    const names = classNamesFor(manifest, labelField);
    const className = labelField !== null ? (names?.[labelOf(reader, index, reader.fieldIndex(labelField))] ?? null) : null;
    // A check is kept only beside a local file (the health check is local-only).
    const check = isRemoteUrl(reader.path) ? null : await readDatasetCheck(reader.path);
    const r = check?.result;
    return {
      path: reader.path,
      index,
      numSamples: reader.numSamples,
      fields,
      className,
      duplicates: r?.duplicates.find((g) => g.includes(index)) ?? null,
      nearDuplicates: r?.near_duplicates.find((g) => g.includes(index)) ?? null,
      flags: [
        ...(r?.corrupt.filter((c) => c.id === index).map((c) => `corrupt: ${c.error}`) ?? []),
        ...(r?.outliers.filter((o) => o.id === index).map((o) => `outlier: ${o.reason}`) ?? []),
      ],
    };
  } finally {
    reader.close();
  }
}

function fullText(v: unknown): string {
  // An int64 as its digits (JSON has no integer type that holds every int64).
  if (typeof v === 'bigint') return v.toString();
  const t =
    v instanceof Uint8Array
      ? `${v.byteLength} bytes: ${Buffer.from(v.subarray(0, 4096)).toString('hex')}`
      : JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x));
  const s = t === undefined ? String(v) : t;
  return s.length > MAX_TEXT ? s.slice(0, MAX_TEXT) + '…' : s;
}
