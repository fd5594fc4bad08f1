/**
 * Hand-edited .beton files for the Reader and loader cross-checks (issue 12, item 8): a copy
 * with some bytes changed, where a field's metadata sits, the whole-file outcome as
 * `beton dump` sees it, and the outcome of draining a Loader over one with a given decoder.
 * Shared by test/reader/reader-crosscheck.test.ts (fast, one case per behaviour) and
 * test/reader/reader-crosscheck-decoders.test.ts (slow, every decoder on every edit).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { IntField } from '../../core/fields/int-field.js';
import { RGBImageField } from '../../core/fields/rgb-image-field.js';
import { BetonFormatError, type BetonErrorCode } from '../../core/format/errors.js';
import { LoaderError } from '../../core/loader/errors.js';
import { Loader } from '../../core/loader/loader.js';
import {
  CenterCropRGBImageDecoder,
  RandomResizedCropRGBImageDecoder,
  SimpleRGBImageDecoder,
  type PipelineStep,
} from '../../core/pipeline/spec.js';
import { Reader } from '../../core/reader/reader.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';

/** Whole-file outcome as `beton dump` sees it: 'OK' (every sample decoded) or the error code. */
export async function codeOf(p: string): Promise<BetonErrorCode | 'OK'> {
  try {
    const r = await Reader.open(p);
    try {
      for (let i = 0; i < r.numSamples; i++) r.read(i);
    } finally {
      r.close();
    }
    return 'OK';
  } catch (e) {
    if (e instanceof BetonFormatError) return e.code;
    throw e;
  }
}

/** Copies of files with some bytes changed, numbered in one folder. */
export function variants(dir: string): (src: string, mutate: (b: Buffer) => void) => string {
  let n = 0;
  return (src, mutate) => {
    const b = Buffer.from(readFileSync(src));
    mutate(b);
    const p = join(dir, `v${n++}.beton`);
    writeFileSync(p, b);
    return p;
  };
}

/** Where field `f` of sample `i` sits in the file. */
export async function metaAt(p: string, i: number, f: number): Promise<number> {
  const r = await Reader.open(p);
  const at = r.regions.metadata.offset + i * r.recordLayout.size + r.recordLayout.offsets[f]!;
  r.close();
  return at;
}

/** 24 JPEG images of one size (40×32) and an int label, on 64 KiB pages. */
export async function writeFixedJpegBeton(path: string): Promise<void> {
  const img = (i: number, w: number, h: number): { data: Uint8Array; width: number; height: number } => {
    const data = new Uint8Array(w * h * 3);
    for (let p = 0; p < data.length; p++) data[p] = (p * 5 + i * 17) & 255;
    return { data, width: w, height: h };
  };
  await new DatasetWriter(
    path,
    { image: new RGBImageField({ writeMode: 'jpg' }), label: new IntField() },
    { pageSize: 1 << 16, allowSmallPages: true, numWorkers: 0 },
  ).write(Array.from({ length: 24 }, (_, i) => ({ image: img(i, 40, 32), label: i })));
}

/** The loader's three image decoders, by name. */
export const DECODERS: Readonly<Record<'simple' | 'center' | 'rrc', () => PipelineStep>> = {
  simple: () => SimpleRGBImageDecoder(),
  center: () => CenterCropRGBImageDecoder(16),
  rrc: () => RandomResizedCropRGBImageDecoder(16),
};

/** Drains a one-worker Loader over `p`: 'OK', or the LoaderError's `CODE:sample`. */
export async function loaderOutcome(p: string, decoder: () => PipelineStep): Promise<string> {
  const loader = await Loader.open(p, { batchSize: 4, numWorkers: 1, pipelines: { image: [decoder()] } });
  try {
    for await (const _ of loader) {
      // drain
    }
    return 'OK';
  } catch (e) {
    if (e instanceof LoaderError) return `${e.code}:${e.details.sample ?? '-'}`;
    throw e;
  } finally {
    await loader.close();
  }
}

/**
 * Copies of a writeFixedJpegBeton file whose image metadata contradicts its JPEGs: every
 * sample's width one less and one more (the simple decoder needs one size for all), and
 * sample 9's height one more.
 */
export async function sizeEdits(
  jpgFixed: string,
  variant: (src: string, mutate: (b: Buffer) => void) => string,
): Promise<{ narrower: string; wider: string; taller: string }> {
  const r = await Reader.open(jpgFixed);
  const offs = Array.from({ length: r.numSamples }, (_, i) => r.regions.metadata.offset + i * r.recordLayout.size);
  r.close();
  return {
    narrower: variant(jpgFixed, (b) => offs.forEach((o) => b.writeUInt16LE(39, o + 1))),
    wider: variant(jpgFixed, (b) => offs.forEach((o) => b.writeUInt16LE(48, o + 1))),
    taller: variant(jpgFixed, (b) => b.writeUInt16LE(33, offs[9]! + 3)),
  };
}
