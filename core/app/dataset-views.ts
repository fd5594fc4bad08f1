import type SharpConstructor from 'sharp';
import type { PreviewResult, PreviewValue } from '../api/contract.js';
import type { PreviewTools } from '../fields/field-type.js';
import type { RGBPixels } from '../fields/image-codec.js';
import { fieldType } from '../fields/registry.js';
import { Reader } from '../reader/reader.js';
import { classNamesFor, labelFieldOf, labelOf, manifestOf, samplesWithLabel, storedBytes } from './dataset-labels.js';
import type { SampleWhere } from '../api/sample-detail.js';
import { samplesWhere } from './sample-filter.js';
import { BetonError } from '../format/errors.js';
import { setOwn } from '../format/own-keys.js';

/**
 * sharp, loaded when a preview first needs it: every `beton` command imports this module
 * (through the service layer), and loading libvips costs ~0.2-0.3 s that `beton build`,
 * `inspect` or `dump` never use.
 */
let sharpLoaded: Promise<typeof SharpConstructor> | undefined;
const getSharp = (): Promise<typeof SharpConstructor> => (sharpLoaded ??= import('sharp').then((m) => m.default));

/** sharp for the field types' previews (core/fields stays free of it). */
export function previewTools(size: number): PreviewTools {
  const resized = async (px: RGBPixels, fit: number) =>
    (await getSharp())(Buffer.from(px.data.buffer, px.data.byteOffset, px.data.byteLength), {
      raw: { width: px.width, height: px.height, channels: 3 },
    }).resize(fit, fit, {
      fit: 'inside',
      withoutEnlargement: true,
    });
  return {
    size,
    png: async (px, fit) => (await (await resized(px, fit)).png({ compressionLevel: 6 }).toBuffer()).toString('base64'),
    jpeg: async (px, fit, quality) => (await (await resized(px, fit)).jpeg({ quality }).toBuffer()).toString('base64'),
  };
}

/** A value as short text: the default preview of a type that has none. */
function text(v: unknown): PreviewValue {
  const t = JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x));
  return { kind: 'text', text: t === undefined ? String(v) : t.length > 200 ? t.slice(0, 200) + '…' : t };
}

/** One decoded value as the app shows it, as its field type previews it (core/fields). */
export async function previewValue(type: string, value: unknown, tools: PreviewTools): Promise<PreviewValue> {
  const preview = fieldType(type).preview;
  return preview ? preview(value, tools) : text(value);
}

/** Decoded samples [start, start+count) as small PNG thumbnails and short texts (nothing heavy crosses to the UI). */
export async function previewDataset(
  path: string,
  start: number,
  count: number,
  thumb: number,
  filter: { label?: number; labelField?: string; where?: SampleWhere } = {},
): Promise<PreviewResult> {
  const reader = await Reader.open(path);
  try {
    const manifest = manifestOf(reader.path);
    const labelField = filter.labelField ?? labelFieldOf(reader, manifest.status === 'ok' ? manifest.manifest : null);
    const names = classNamesFor(manifest, labelField);
    const lf =
      labelField !== null && reader.fields.some((f) => f.name === labelField && f.field.type === 'int')
        ? reader.fieldIndex(labelField)
        : null;
    if (filter.label !== undefined && lf === null)
      throw new BetonError(
        'BAD_REQUEST',
        `${reader.path} has no int field ${labelField === null ? 'named label' : `"${labelField}"`} to filter by; fields: ${reader.fields.map((f) => `${f.name} (${f.field.type})`).join(', ')}`,
      );
    const byLabel = filter.label !== undefined && lf !== null ? samplesWithLabel(reader, labelField!, filter.label) : null;
    let matching = byLabel;
    if (filter.where) {
      try {
        matching = await samplesWhere(reader, filter.where, byLabel ?? undefined);
      } catch (e) {
        throw new BetonError('BAD_REQUEST', (e as Error).message);
      }
    }
    const indices = matching
      ? matching.slice(start, start + count)
      : Array.from({ length: Math.max(0, Math.min(reader.numSamples, start + count) - start) }, (_, k) => start + k);
    // A remote file: the samples' pages in a few parallel GETs, not one blocking GET each.
    await reader.prefetch(indices);
    const samples: PreviewResult['samples'] = [];
    const tools = previewTools(thumb);
    for (const i of indices) {
      const fields: Record<string, PreviewValue> = {};
      for (const { name, field } of reader.fields) {
        // One corrupt value marks its tile, not the page: the other samples still show (and the check names it).
        let value: unknown;
        try {
          value = reader.readField(i, name);
        } catch (e) {
          setOwn(fields, name, { kind: 'text', text: `cannot decode: ${(e as Error).message.replace(`${reader.path}: `, '')}` });
          continue;
        }
        setOwn(fields, name, await previewValue(field.type, value, tools));
      }
      samples.push({
        index: i,
        fields,
        storedBytes: storedBytes(reader, i),
        ...(lf !== null ? { className: names?.[labelOf(reader, i, lf)] ?? null } : {}),
      });
    }
    return {
      path: reader.path,
      start,
      numSamples: reader.numSamples,
      samples,
      ...(byLabel && labelField !== null ? { filter: { field: labelField, label: filter.label!, matches: matching!.length } } : {}),
      ...(filter.where ? { where: { field: filter.where.field, matches: matching!.length } } : {}),
    };
  } finally {
    reader.close();
  }
}
