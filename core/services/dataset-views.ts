import type SharpConstructor from 'sharp';
import type { PreviewResult, PreviewValue } from '../api/contract.js';
import type { PreviewTools } from '../fields/field-type.js';
import type { RGBPixels } from '../fields/image-codec.js';
import { fieldType } from '../fields/registry.js';
import { Reader } from '../reader/reader.js';

/**
 * sharp, loaded when a preview first needs it: every `beton` command imports this module
 * (through the service layer), and loading libvips costs ~0.2-0.3 s that `beton build`,
 * `inspect` or `dump` never use.
 */
let sharpLoaded: Promise<typeof SharpConstructor> | undefined;
const getSharp = (): Promise<typeof SharpConstructor> => (sharpLoaded ??= import('sharp').then((m) => m.default));

/** sharp for the field types' previews (core/fields stays free of it). */
function previewTools(size: number): PreviewTools {
  const resized = async (px: RGBPixels, fit: number) =>
    (await getSharp())(Buffer.from(px.data.buffer, px.data.byteOffset, px.data.byteLength), { raw: { width: px.width, height: px.height, channels: 3 } }).resize(fit, fit, {
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
export async function previewDataset(path: string, start: number, count: number, thumb: number): Promise<PreviewResult> {
  const reader = await Reader.open(path);
  try {
    const end = Math.min(reader.numSamples, start + count);
    const samples: PreviewResult['samples'] = [];
    const tools = previewTools(thumb);
    for (let i = start; i < end; i++) {
      const fields: Record<string, PreviewValue> = {};
      for (const { name, field } of reader.fields) {
        const v = reader.readField(i, name);
        fields[name] = await previewValue(field.type, v, tools);
      }
      samples.push({ index: i, fields });
    }
    return { path: reader.path, start, numSamples: reader.numSamples, samples };
  } finally {
    reader.close();
  }
}
