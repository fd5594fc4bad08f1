import type SharpConstructor from 'sharp';
import type { InspectResult, PreviewResult, PreviewValue } from '../api/contract.js';
import type { NDArray } from '../fields/ndarray-field.js';
import { floatRepr } from '../fields/python-json.js';
import type { DecodedImage } from '../fields/rgb-image-field.js';
import type { DecodedClip } from '../fields/video-clip-field.js';
import { ndarrayValues } from '../reader/canonical.js';
import { summarize } from '../reader/inspect.js';
import { Reader } from '../reader/reader.js';
import { ServiceError } from './service-error.js';
import { classNamesFor, labelFieldOf, labelOf, labelSummary, manifestOf, manifestView, samplesWithLabel, storedBytes } from './dataset-labels.js';

/**
 * sharp, loaded when a preview first needs it: every `beton` command imports this module
 * (through the service layer), and loading libvips costs ~0.2-0.3 s that `beton build`,
 * `inspect` or `dump` never use.
 */
let sharpLoaded: Promise<typeof SharpConstructor> | undefined;
const getSharp = (): Promise<typeof SharpConstructor> => (sharpLoaded ??= import('sharp').then((m) => m.default));

/** Header, fields, regions and the page map of a .beton file (metadata and allocation table only). */
export async function inspectDataset(path: string): Promise<InspectResult> {
  const reader = await Reader.open(path);
  try {
    const s = summarize(reader);
    const manifest = manifestOf(reader.path);
    const labelField = labelFieldOf(reader, manifest.status === 'ok' ? manifest.manifest : null);
    const pages = new Map<number, [number, number, number]>();
    for (const a of reader.allocations) {
      if (a.size === 0) continue;
      const p = Math.floor(a.ptr / reader.pageSize);
      const cur = pages.get(p);
      if (cur) pages.set(p, [Math.min(cur[0], a.sampleId), Math.max(cur[1], a.sampleId), cur[2] + a.size]);
      else pages.set(p, [a.sampleId, a.sampleId, a.size]);
    }
    return {
      path: s.path,
      fileSize: s.fileSize,
      version: s.version,
      numSamples: s.numSamples,
      pageSize: s.pageSize,
      numPages: s.numPages,
      recordSize: s.recordSize,
      fields: s.fields.map((f) => ({ name: f.name, type: f.type, ffcvClass: f.ffcvClass, typeId: f.typeId, arguments: f.arguments, heapBytes: f.heapBytes, ...(f.imageModes ? { imageModes: f.imageModes } : {}) })),
      regions: s.regions.map(({ name, offset, size }) => ({ name, offset, size })),
      pageMap: [...pages.entries()].sort((a, b) => a[0] - b[0]).map(([p, [lo, hi, used]]) => [p, lo, hi, used]),
      manifest: manifestView(manifest),
      labels: labelField ? labelSummary(reader, labelField, classNamesFor(manifest, labelField)) : null,
    };
  } finally {
    reader.close();
  }
}

async function thumbnail(im: DecodedImage, size: number): Promise<PreviewValue> {
  const sharp = await getSharp();
  const png = await sharp(Buffer.from(im.data.buffer, im.data.byteOffset, im.data.byteLength), { raw: { width: im.width, height: im.height, channels: 3 } })
    .resize(size, size, { fit: 'inside', withoutEnlargement: true })
    .png({ compressionLevel: 6 })
    .toBuffer();
  return { kind: 'image', mime: 'image/png', base64: png.toString('base64'), width: im.width, height: im.height, mode: im.mode };
}

function text(type: string, v: unknown): string {
  switch (type) {
    case 'int': return String(v);
    case 'float': return floatRepr(v as number);
    case 'bytes': {
      const b = v as Uint8Array;
      return `${b.byteLength} bytes ${Buffer.from(b.subarray(0, 16)).toString('hex')}${b.byteLength > 16 ? '…' : ''}`;
    }
    case 'ndarray':
    case 'torch_tensor': {
      const a = v as NDArray;
      const vals = JSON.stringify(ndarrayValues(a));
      return `${a.dtype} [${a.shape.join(', ')}] ${vals.length > 120 ? vals.slice(0, 120) + '…' : vals}`;
    }
    default: {
      const t = JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x));
      return t === undefined ? String(v) : t.length > 200 ? t.slice(0, 200) + '…' : t;
    }
  }
}

/** A clip as a filmstrip: up to 8 evenly spaced frames as small JPEGs. */
async function filmstrip(clip: DecodedClip, size: number): Promise<PreviewValue> {
  const frameBytes = clip.width * clip.height * 3;
  const picks = Math.min(8, clip.count);
  const base64: string[] = [];
  const sharp = await getSharp();
  for (let k = 0; k < picks; k++) {
    const f = Math.floor((k * clip.count) / picks);
    const px = clip.data.subarray(f * frameBytes, (f + 1) * frameBytes);
    const jpg = await sharp(Buffer.from(px.buffer, px.byteOffset, px.byteLength), { raw: { width: clip.width, height: clip.height, channels: 3 } })
      .resize(size, size, { fit: 'inside', withoutEnlargement: true })
      .jpeg({ quality: 80 })
      .toBuffer();
    base64.push(jpg.toString('base64'));
  }
  return { kind: 'frames', mime: 'image/jpeg', base64, width: clip.width, height: clip.height };
}

/**
 * Decoded samples [start, start+count) as small PNG thumbnails and short texts (nothing heavy
 * crosses to the UI), with each field's stored bytes and the class name. With `filter.label`
 * only the samples of that label, `start` counting among them.
 */
export async function previewDataset(path: string, start: number, count: number, thumb: number, filter: { label?: number; labelField?: string } = {}): Promise<PreviewResult> {
  const reader = await Reader.open(path);
  try {
    const manifest = manifestOf(reader.path);
    const labelField = filter.labelField ?? labelFieldOf(reader, manifest.status === 'ok' ? manifest.manifest : null);
    const names = classNamesFor(manifest, labelField);
    const lf = labelField !== null && reader.fields.some((f) => f.name === labelField && f.field.type === 'int') ? reader.fieldIndex(labelField) : null;
    if (filter.label !== undefined && lf === null) throw new ServiceError('BAD_REQUEST', `${reader.path} has no int field ${labelField === null ? 'named label' : `"${labelField}"`} to filter by; fields: ${reader.fields.map((f) => `${f.name} (${f.field.type})`).join(', ')}`);
    const matching = filter.label !== undefined && lf !== null ? samplesWithLabel(reader, labelField!, filter.label) : null;
    const indices = matching ? matching.slice(start, start + count) : Array.from({ length: Math.max(0, Math.min(reader.numSamples, start + count) - start) }, (_, k) => start + k);
    const samples: PreviewResult['samples'] = [];
    for (const i of indices) {
      const fields: Record<string, PreviewValue> = {};
      for (const { name, field } of reader.fields) {
        const v = reader.readField(i, name);
        fields[name] =
          field.type === 'rgb_image'
            ? await thumbnail(v as DecodedImage, thumb)
            : field.type === 'video_clip'
              ? await filmstrip(v as DecodedClip, Math.max(32, Math.round(thumb / 2)))
              : { kind: 'text', text: text(field.type, v) };
      }
      samples.push({ index: i, fields, storedBytes: storedBytes(reader, i), ...(lf !== null ? { className: names?.[labelOf(reader, i, lf)] ?? null } : {}) });
    }
    return { path: reader.path, start, numSamples: reader.numSamples, samples, ...(matching && labelField !== null ? { filter: { field: labelField, label: filter.label!, matches: matching.length } } : {}) };
  } finally {
    reader.close();
  }
}
