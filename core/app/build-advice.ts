import { RGB_IMAGE_IDENTITY } from '../fields/rgb-image-field.js';
import { VIDEO_CLIP_IDENTITY } from '../fields/video-clip-field.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { BuildAdvice, PageSizeOption, QualityPreviewItem, QualityVariant } from '../api/build-advice.js';
import type { BuildConfig, FieldConfig } from '../api/build-config.js';
import type { EncodedValue, Field } from '../fields/field.js';
import type { ImageCodec } from '../fields/image-codec.js';
import type { NamedField } from '../fields/schema.js';
import { ALLOC_ENTRY_SIZE, FIELD_DESCRIPTOR_SIZE, HEADER_SIZE, MIN_WRITER_PAGE_SIZE } from '../format/constants.js';
import { recordLayout } from '../format/record-layout.js';
import { openSource } from '../sources/open-source.js';
import type { ReadGuard } from '../sources/common/read-guard.js';
import type { DatasetSource } from '../sources/common/source.js';
import { buildFields, toNamedFields } from './build.js';
import { scanHeaders } from './header-scan.js';
import { DatasetWriter } from '../writer/dataset-writer.js';
import { encodeSample } from '../writer/encode-sample.js';
import type { Sample } from '../writer/sample.js';
import { sampleRandom } from '../writer/sample-random.js';
import { selectSlice } from '../writer/selection.js';
import { ownValue } from '../format/own-keys.js';
import type { BuildSource } from './build-source.js';

export interface AdviseOptions {
  baseDir?: string;
  readGuard?: ReadGuard;
  /** The build's source when planning made it (`beton build SOURCE --advise`): opened once, not again here. */
  source?: BuildSource;
  /** Source items to encode (default 24). */
  sample?: number;
  /** Which items (default 0): the same seed picks the same items. */
  seed?: number;
  /** The loader's output size (profile/export decoder, e.g. 160 for rrc:160); null: no crop check. */
  loaderSize?: number | null;
  /** Items shown in the quality preview (default 4) and the JPEG qualities compared (default 50, 75, 90, 95). */
  previewItems?: number;
  qualities?: readonly number[];
}

/** Sources whose items can be fetched one by one cheaply (a listing); tables are read front to back. */
const SEEKABLE = new Set(['image_folder', 'image_list', 'video_folder', 'video_list']);
/** Below this a JPEG is shown whole; larger ones as a 1:1 crop of their middle (downscaling would hide the artifacts). */
const WHOLE_PREVIEW = 256;
const CROP = 160;
/** A smaller page is suggested only when it saves this much of the file. */
const WORTH_SUGGESTING = 0.1;

/**
 * Advice before a build, from encoding a few source items with the build's own settings:
 * the file size and build time to expect, a smaller page for a small dataset, what the
 * JPEG quality / smart threshold do to a few images, and whether the loader's crop is
 * larger than the stored images. Estimates, and said to be: nothing is written.
 */
export async function adviseBuild(config: BuildConfig, opts: AdviseOptions = {}): Promise<BuildAdvice> {
  const base = opts.baseDir ?? process.cwd();
  const source = opts.source
    ? await opts.source.open()
    : await openSource(
        { ...config.source, path: resolve(base, config.source.path) },
        base,
        opts.readGuard ? { readGuard: opts.readGuard } : {},
      );
  const fieldConfigs = await buildFields(config, source);
  const fields = toNamedFields(fieldConfigs);
  const slice = selectSlice(source.length, config.range, config.shard);
  const listed = slice.end === null ? null : slice.end - slice.start;
  const seed = opts.seed ?? 0;
  const want = Math.max(1, opts.sample ?? 24);
  const picked: BuildAdvice['picked'] = SEEKABLE.has(source.kind) && listed !== null && listed > want ? 'random' : 'first';
  const indices =
    picked === 'random'
      ? pickIndices(listed!, want, seed).map((i) => i + slice.start)
      : range(slice.start, slice.end === null ? slice.start + want : Math.min(slice.end, slice.start + want));
  // Reading is timed too: a video source decodes frames here, on the build's main thread.
  const tRead = performance.now();
  const samples = await fetchSamples(source, fieldConfigs, indices, picked === 'random');
  const readMs = performance.now() - tRead;
  // A source of unknown length (a video folder: clips per video are known only once decoded)
  // that ended before the sample did has been read whole: its length is known now.
  const items = listed ?? (picked === 'first' && samples.length < want ? samples.length : null);

  const needsCodec = fields.some((f) => f.field.type === RGB_IMAGE_IDENTITY.type || f.field.type === VIDEO_CLIP_IDENTITY.type);
  const codec: ImageCodec | undefined = needsCodec ? (await import('../images/node-image-codec.js')).nodeImageCodec() : undefined;
  const enc = { codec, seed: config.seed, baseDir: source.baseDir };

  // One untimed item first: the codec's first call loads libraries that a build loads once.
  if (samples[0]) await encodeSample(fields, samples[0].sample, samples[0].index, enc).catch(() => undefined);
  const encoded: Array<{ index: number; sample: Sample; values: EncodedValue[] }> = [];
  let failed = 0;
  let firstFailure: string | null = null;
  let encodeMs = 0;
  for (const s of samples) {
    const t0 = performance.now();
    try {
      const values = await encodeSample(fields, s.sample, s.index, enc);
      encodeMs += performance.now() - t0;
      encoded.push({ ...s, values });
    } catch (e) {
      failed++;
      firstFailure ??= (e as Error).message;
    }
  }
  const heapSizes = encoded.map((e) => e.values.reduce((sum, v) => sum + (v.heap?.byteLength ?? 0), 0));
  const objectsPerSample = encoded.length
    ? encoded.reduce((s, e) => s + e.values.filter((v) => v.heap !== null).length, 0) / encoded.length
    : 0;
  const mean = heapSizes.length ? heapSizes.reduce((a, b) => a + b, 0) / heapSizes.length : 0;
  const largest = heapSizes.reduce((a, b) => Math.max(a, b), 0);
  const msPerSample = encoded.length ? encodeMs / encoded.length : 0;
  const workers = Math.max(1, config.numWorkers ?? availableParallelism());
  const shortRun = await timeShortBuild(config, fields, samples, source.baseDir);
  const recordSize = recordLayout(fields.map((f) => f.field.metadata)).size;

  const layout = { items, recordSize, numFields: fields.length, heapSizes, objectsPerSample };
  const candidates = pageSizeCandidates(config.pageSize, largest);
  const pageSizes: PageSizeOption[] =
    items === null || heapSizes.length === 0
      ? []
      : candidates.map((p) => ({ pageSize: p, ...estimateFile(layout, p), chosen: p === config.pageSize, suggested: false }));
  const chosen = pageSizes.find((o) => o.chosen) ?? null;
  let pageSizeAdvice: string | null = null;
  const best = pageSizes
    .filter((o) => o.pageSize < config.pageSize)
    .sort((a, b) => a.fileBytes - b.fileBytes || b.pageSize - a.pageSize)[0];
  if (chosen && best && chosen.fileBytes - best.fileBytes >= WORTH_SUGGESTING * chosen.fileBytes) {
    best.suggested = true;
    pageSizeAdvice = `With ${mib(config.pageSize)} pages the file is about ${mib(chosen.fileBytes)}, mostly padding (the header region and the last page are whole pages); ${mib(best.pageSize)} pages make it about ${mib(best.fileBytes)}. FFCV reads any page size; its writer needs at least 2 MiB.`;
  }

  const headers = await scanHeaders(source, fieldConfigs, slice);
  const warnings: string[] = [];
  if (headers?.unreadableCount)
    warnings.push(
      `${headers.unreadableCount} of ${headers.checked} source files cannot be read (their headers say so); with onError "fail" the build would stop at the first.`,
    );
  if (failed)
    warnings.push(
      `${failed} of ${samples.length} sampled items failed to encode (${firstFailure}); with onError "fail" the build would stop there.`,
    );
  const quality = await qualityPreview(fieldConfigs, fields, encoded, enc, opts);
  const crop = cropCheck(fieldConfigs, fields, encoded, opts.loaderSize ?? null);
  if (crop?.warning) warnings.push(crop.warning);

  const howPicked = picked === 'random' ? `${samples.length} items picked at random (seed ${seed})` : `the first ${samples.length} items`;
  return {
    sampled: samples.length,
    picked,
    seed,
    items,
    failed,
    firstFailure,
    headers,
    estimate: {
      heapBytesPerSample: mean,
      largestSampleBytes: largest,
      fileBytes: chosen?.fileBytes ?? null,
      encodeMsPerSample: msPerSample,
      workers,
      buildSeconds:
        items === null
          ? null
          : buildSecondsFor(items, { n: samples.length, readMs, encodeMsPerSample: msPerSample, workers, runMs: shortRun }),
      note: `Estimated from ${howPicked} of ${items === null ? 'a source of unknown length' : items}, encoded here on one thread with these settings; the time comes from a short real build of them with ${workers} encoder${workers === 1 ? '' : 's'} (start-up, reading, encoding and writing the file).`,
    },
    pageSizes,
    pageSizeAdvice,
    quality,
    crop,
    warnings,
  };
}

const mib = (b: number): string =>
  b >= 1024 * 1024 ? `${+(b / 1024 / 1024).toFixed(b >= 100 * 1024 * 1024 ? 0 : 1)} MiB` : `${Math.ceil(b / 1024)} KiB`;
const range = (a: number, b: number): number[] => Array.from({ length: Math.max(0, b - a) }, (_, i) => a + i);

/** `k` distinct positions of [0, n), sorted, the same for the same seed (partial Fisher-Yates over a sparse map). */
export function pickIndices(n: number, k: number, seed: number): number[] {
  const rand = sampleRandom(seed, 0);
  const swapped = new Map<number, number>();
  const out: number[] = [];
  for (let i = 0; i < Math.min(k, n); i++) {
    const j = i + Math.floor(rand() * (n - i));
    const vj = swapped.get(j) ?? j;
    swapped.set(j, swapped.get(i) ?? i);
    out.push(vj);
  }
  return out.sort((a, b) => a - b);
}

/**
 * The wall time of a real build of the sampled items (a temporary file, the config's
 * workers, page size and seed): what the encode timing alone leaves out — starting the
 * encoders, handing samples over, writing pages, renaming the file. Null when it fails.
 */
async function timeShortBuild(
  config: BuildConfig,
  fields: NamedField[],
  samples: ReadonlyArray<{ sample: Sample }>,
  baseDir: string | undefined,
): Promise<number | null> {
  if (!samples.length) return null;
  const dir = await mkdtemp(join(tmpdir(), 'beton-advice-'));
  try {
    const t0 = performance.now();
    const writer = new DatasetWriter(join(dir, 'sample.beton'), fields, {
      pageSize: config.pageSize,
      numWorkers: config.numWorkers,
      chunkSize: config.chunkSize,
      seed: config.seed,
      onError: 'skip',
      baseDir,
    });
    await writer.write(samples.map((s) => s.sample));
    return performance.now() - t0;
  } catch {
    return null;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * A build of `items` from the sampled timings: the short real run is fixed costs plus its
 * items' share of the parallel encoding; the fixed part stays, and every item adds its
 * reading (serial, main thread) and its encoding spread over the workers. Without a real
 * run, the sum of the parts.
 */
export function buildSecondsFor(
  items: number,
  t: { n: number; readMs: number; encodeMsPerSample: number; workers: number; runMs: number | null },
): number {
  const perItemMs = (t.n ? t.readMs / t.n : 0) + t.encodeMsPerSample / t.workers;
  const fixedMs = t.runMs === null ? 0 : Math.max(0, t.runMs - t.n * (t.encodeMsPerSample / t.workers));
  return (fixedMs + items * perItemMs) / 1000;
}

async function fetchSamples(
  source: DatasetSource,
  fields: readonly FieldConfig[],
  indices: readonly number[],
  oneByOne: boolean,
): Promise<Array<{ index: number; sample: Sample }>> {
  const out: Array<{ index: number; sample: Sample }> = [];
  if (oneByOne) {
    for (const i of indices) for await (const sample of source.samples(fields, { start: i, end: i + 1 })) out.push({ index: i, sample });
    return out;
  }
  if (!indices.length) return out;
  let i = indices[0]!;
  for await (const sample of source.samples(fields, { start: i, end: indices[indices.length - 1]! + 1 })) out.push({ index: i++, sample });
  return out;
}

/** The config's page size, then each smaller power of two down to FFCV's writer minimum that still holds the largest sample twice over. */
export function pageSizeCandidates(chosen: number, largestSample: number): number[] {
  const out = [chosen];
  for (let p = chosen / 2; p >= MIN_WRITER_PAGE_SIZE; p /= 2) if (p >= 2 * largestSample) out.push(p);
  return out;
}

/**
 * The file the writer would make: the header region rounded up to a page (D0), the pages
 * (a sample never straddles two; the last page is written whole), then the allocation
 * table. Sample sizes cycle through the sampled ones.
 */
export function estimateFile(
  l: { items: number | null; recordSize: number; numFields: number; heapSizes: readonly number[]; objectsPerSample: number },
  pageSize: number,
): { fileBytes: number; pages: number } {
  const n = l.items ?? 0;
  const m1 = HEADER_SIZE + FIELD_DESCRIPTOR_SIZE * l.numFields + n * l.recordSize;
  const d0 = Math.ceil(m1 / pageSize) * pageSize;
  let pages = 0;
  let fill = 0;
  for (let i = 0; i < n; i++) {
    const s = l.heapSizes[i % l.heapSizes.length]!;
    if (s === 0) continue;
    if (pages === 0 || fill + s > pageSize) {
      pages++;
      fill = 0;
    }
    fill += s;
  }
  const table = Math.round(n * l.objectsPerSample) * ALLOC_ENTRY_SIZE;
  return { fileBytes: (pages > 0 ? d0 + pages * pageSize : m1) + table, pages };
}

/** How an encoded image is stored, as its field says (the byte layout is the field's). */
const imageMeta = (field: Field, v: EncodedValue): { mode: 'raw' | 'jpg'; width: number; height: number } => {
  const d = new DataView(v.meta.buffer, v.meta.byteOffset, v.meta.byteLength);
  return { mode: field.imageMode!(d), ...field.imageSize!(d) };
};

type Encoded = Array<{ index: number; sample: Sample; values: EncodedValue[] }>;
type EncodeOpts = { codec: ImageCodec | undefined; seed: number; baseDir: string | undefined };

async function qualityPreview(
  configs: readonly FieldConfig[],
  fields: readonly NamedField[],
  encoded: Encoded,
  enc: EncodeOpts,
  opts: AdviseOptions,
): Promise<BuildAdvice['quality']> {
  const f = configs.findIndex((c) => c.type === RGB_IMAGE_IDENTITY.type);
  const cfg = configs[f];
  if (!cfg || cfg.type !== RGB_IMAGE_IDENTITY.type) return null;
  const { name, field: stored } = fields[f]!;
  const { columns: _c, name: _n, ...spec } = cfg;
  const qualities = [...new Set([...(opts.qualities ?? [50, 75, 90, 95]), cfg.jpegQuality])].sort((a, b) => a - b);
  const { fieldFromSpec } = await import('../fields/registry.js');
  const items: QualityPreviewItem[] = [];
  for (const e of encoded.slice(0, opts.previewItems ?? 4)) {
    const value = Array.isArray(e.sample) ? e.sample[f] : ownValue(e.sample, name);
    const as = imageMeta(stored, e.values[f]!);
    const variants: QualityVariant[] = [
      {
        label: `as configured (${cfg.writeMode})`,
        ...as,
        quality: as.mode === 'jpg' ? cfg.jpegQuality : null,
        bytes: e.values[f]!.heap?.byteLength ?? 0,
        preview: await preview(stored, e.values[f]!),
        chosen: true,
      },
    ];
    const alt: Array<{ label: string; mode: 'raw' | 'jpg'; quality: number | null }> = [
      ...qualities.map((q) => ({ label: `JPEG q${q}`, mode: 'jpg' as const, quality: q })),
      { label: 'raw', mode: 'raw', quality: null },
    ];
    for (const a of alt) {
      const field = fieldFromSpec({ ...spec, writeMode: a.mode, jpegQuality: a.quality ?? cfg.jpegQuality, passThrough: false });
      const [v] = await encodeSample([{ name, field }], [value], e.index, enc);
      variants.push({ ...a, bytes: v!.heap?.byteLength ?? 0, preview: await preview(field, v!), chosen: false });
    }
    items.push({
      index: e.index,
      source:
        typeof value === 'object' && value && 'path' in value
          ? String((value as { path: unknown }).path)
          : typeof value === 'string'
            ? value
            : null,
      width: as.width,
      height: as.height,
      variants,
    });
  }
  const modes = encoded.map((e) => imageMeta(stored, e.values[f]!).mode);
  const smart =
    cfg.writeMode === 'smart' ? { jpg: modes.filter((m) => m === 'jpg').length, raw: modes.filter((m) => m === 'raw').length } : null;
  return { field: name, writeMode: cfg.writeMode, smartThreshold: cfg.smartThreshold, items, smart };
}

/** The stored image as the UI shows it: a small JPEG as stored, anything larger as a lossless 1:1 crop of its middle. */
async function preview(field: Field, v: EncodedValue): Promise<QualityVariant['preview']> {
  if (!v.heap) return null;
  const m = imageMeta(field, v);
  const sharp = (await import('sharp')).default;
  const small = m.width <= WHOLE_PREVIEW && m.height <= WHOLE_PREVIEW;
  if (small && m.mode === 'jpg')
    return { mime: 'image/jpeg', base64: Buffer.from(v.heap).toString('base64'), width: m.width, height: m.height, crop: false };
  const img =
    m.mode === 'jpg' ? sharp(Buffer.from(v.heap)) : sharp(Buffer.from(v.heap), { raw: { width: m.width, height: m.height, channels: 3 } });
  const w = Math.min(CROP, m.width);
  const h = Math.min(CROP, m.height);
  const cut = small ? img : img.extract({ left: Math.floor((m.width - w) / 2), top: Math.floor((m.height - h) / 2), width: w, height: h });
  const png = await cut.png({ compressionLevel: 6 }).toBuffer();
  return { mime: 'image/png', base64: png.toString('base64'), width: small ? m.width : w, height: small ? m.height : h, crop: !small };
}

function cropCheck(
  configs: readonly FieldConfig[],
  fields: readonly NamedField[],
  encoded: Encoded,
  loaderSize: number | null,
): BuildAdvice['crop'] {
  const f = configs.findIndex((c) => c.type === RGB_IMAGE_IDENTITY.type);
  const cfg = configs[f];
  if (loaderSize === null || !cfg || cfg.type !== RGB_IMAGE_IDENTITY.type || !encoded.length) return null;
  const dims = encoded.map((e) => imageMeta(fields[f]!.field, e.values[f]!));
  const sides = dims.map((d) => Math.max(d.width, d.height));
  const minSide = dims.reduce((m, d) => Math.min(m, d.width, d.height), Infinity);
  const maxSide = sides.reduce((m, s) => Math.max(m, s), 0);
  const smaller = sides.filter((s) => s < loaderSize).length;
  let warning: string | null = null;
  if (cfg.maxResolution !== null && cfg.maxResolution < loaderSize) {
    warning = `The loader's ${loaderSize} px crop is larger than the max resolution ${cfg.maxResolution} px of field "${fields[f]!.name}": every image is stored smaller than it is read, and the loader upscales it. Raise max resolution to at least ${loaderSize}, or crop smaller.`;
  } else if (smaller > 0) {
    warning = `${smaller} of ${dims.length} sampled images of field "${fields[f]!.name}" are stored smaller (longest side down to ${sides.reduce((m, s) => Math.min(m, s), Infinity)} px) than the loader's ${loaderSize} px crop: the loader upscales them.`;
  }
  return { loaderSize, maxResolution: cfg.maxResolution, minSide, maxSide, smallerThanCrop: smaller, warning };
}
