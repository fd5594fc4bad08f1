/**
 * A seeded, cached, ImageNet-like ImageFolder (`root/<class>/<n>.jpg`) for benchmarks:
 * random 300–500 px sides (ImageNet's typical range), JPEG q90, photo-like content.
 *
 *   node dist/bench/generate-imagenet-like.js [--count N] [--seed S] [--classes K] [--dir D]
 *   npm run bench -- generate [same options]
 *
 * Later benchmarks call ensureImageNetLike() and get the same files back for free.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { UsageError, intSetting, isEntryPoint, nonNegativeInt, runAsScript, type BenchMain } from './lib/cli.js';
import { Rng, mixSeed } from './lib/prng.js';
import { benchScratchDir } from './lib/repo.js';
import { classPalette, synthImage } from './lib/synth-image.js';

/** Bump when the drawing changes: the same seed would then give different bytes. */
const GENERATOR = 'beton-studio/bench/imagenet-like';
const GENERATOR_VERSION = 1;

export const DEFAULT_COUNT = 2000;
export const DEFAULT_SEED = 1;
export const DEFAULT_CLASSES = 10;
const MIN_SIDE = 300;
const MAX_SIDE = 500;
const QUALITY = 90;

export interface ImageNetLikeOptions {
  count?: number;
  seed?: number;
  classes?: number;
  /** Default: <repo>/.bench/imagenet-like-<count>[-s<seed>]. */
  dir?: string;
  /** Called after each image while generating (not when the cache is reused). */
  onProgress?: (done: number, total: number) => void;
}

export interface ManifestImage {
  /** Relative to the data set root, '/'-separated. */
  file: string;
  label: number;
  width: number;
  height: number;
  bytes: number;
}

export interface Manifest {
  generator: string;
  version: number;
  seed: number;
  count: number;
  classes: number;
  minSide: number;
  maxSide: number;
  quality: number;
  totalBytes: number;
  images: ManifestImage[];
}

export interface ImageNetLike {
  root: string;
  manifest: Manifest;
  /** False when an existing folder was reused. */
  generated: boolean;
  elapsedMs: number;
}

export function defaultDir(count: number, seed: number): string {
  const suffix = seed === DEFAULT_SEED ? '' : `-s${seed}`;
  return join(benchScratchDir(), `imagenet-like-${count}${suffix}`);
}

/** Returns the data set at `dir`, generating it first unless a matching one is there. */
export async function ensureImageNetLike(options: ImageNetLikeOptions = {}): Promise<ImageNetLike> {
  const t0 = performance.now();
  const count = options.count ?? DEFAULT_COUNT;
  const seed = options.seed ?? DEFAULT_SEED;
  const classes = options.classes ?? DEFAULT_CLASSES;
  if (!Number.isInteger(count) || count < 1) throw new UsageError(`count must be a positive integer, got ${count}`);
  if (!Number.isInteger(classes) || classes < 1 || classes > count)
    throw new UsageError(`classes must be an integer in [1, count], got ${classes}`);
  if (!Number.isInteger(seed) || seed < 0) throw new UsageError(`seed must be a non-negative integer, got ${seed}`);
  const root = resolve(options.dir ?? defaultDir(count, seed));
  const wanted = {
    generator: GENERATOR,
    version: GENERATOR_VERSION,
    seed,
    count,
    classes,
    minSide: MIN_SIDE,
    maxSide: MAX_SIDE,
    quality: QUALITY,
  };

  const existing = readManifest(root);
  if (existing && matches(existing, wanted) && filesIntact(root, existing)) {
    return { root, manifest: existing, generated: false, elapsedMs: performance.now() - t0 };
  }
  if (existsSync(root) && !existing) {
    // Only ever replace a folder this generator made: --dir could point anywhere.
    throw new UsageError(
      `${root} exists but has no ${GENERATOR} manifest.json; refusing to overwrite it (remove it or choose another --dir)`,
    );
  }

  // Build beside the target and rename at the end, so an interrupted run never leaves a
  // folder that looks complete, and a stale one stays usable until the new one is ready.
  const partial = join(dirname(root), `.${basename(root)}.partial-${process.pid}`);
  await rm(partial, { recursive: true, force: true });
  try {
    const images = await generate(partial, { seed, count, classes }, options.onProgress);
    const manifest: Manifest = { ...wanted, totalBytes: images.reduce((s, im) => s + im.bytes, 0), images };
    await writeFile(join(partial, 'manifest.json'), JSON.stringify(manifest, null, 1) + '\n');
    await rm(root, { recursive: true, force: true });
    await rename(partial, root);
    return { root, manifest, generated: true, elapsedMs: performance.now() - t0 };
  } catch (e) {
    await rm(partial, { recursive: true, force: true });
    throw e;
  }
}

function className(k: number, classes: number): string {
  // Zero-padded so that ImageFolder's sorted-name labels equal k.
  return `class${String(k).padStart(String(classes - 1).length, '0')}`;
}

async function generate(
  root: string,
  p: { seed: number; count: number; classes: number },
  onProgress?: (done: number, total: number) => void,
): Promise<ManifestImage[]> {
  const palettes = Array.from({ length: p.classes }, (_, k) => classPalette(k, p.classes, new Rng(mixSeed(p.seed, -1 - k))));
  for (let k = 0; k < p.classes; k++) await mkdir(join(root, className(k, p.classes)), { recursive: true });
  const digits = String(p.count - 1).length;
  const images: ManifestImage[] = new Array<ManifestImage>(p.count);
  // Drawing runs on this thread while sharp encodes the previous images on libuv's pool;
  // two in flight keep both cores of a small machine busy without piling up buffers.
  const inFlight = new Set<Promise<void>>();
  let done = 0;
  for (let n = 0; n < p.count; n++) {
    // One generator per image: image n is the same whatever the count or the order.
    const rng = new Rng(mixSeed(p.seed, n));
    const label = n % p.classes;
    const width = rng.int(MIN_SIDE, MAX_SIDE);
    const height = rng.int(MIN_SIDE, MAX_SIDE);
    const pixels = synthImage(width, height, palettes[label]!, rng);
    const file = `${className(label, p.classes)}/${String(n).padStart(digits, '0')}.jpg`;
    const task = sharp(pixels, { raw: { width, height, channels: 3 } })
      .jpeg({ quality: QUALITY })
      .toFile(join(root, file))
      .then((info) => {
        images[n] = { file, label, width, height, bytes: info.size };
        onProgress?.(++done, p.count);
      });
    inFlight.add(task);
    void task.finally(() => inFlight.delete(task)).catch(() => undefined);
    if (inFlight.size >= 2) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  return images;
}

function readManifest(root: string): Manifest | null {
  const path = join(root, 'manifest.json');
  if (!existsSync(path)) return null;
  try {
    const m = JSON.parse(readFileSync(path, 'utf8')) as Partial<Manifest>;
    return m.generator === GENERATOR && Array.isArray(m.images) ? (m as Manifest) : null;
  } catch {
    return null;
  }
}

function matches(m: Manifest, wanted: Omit<Manifest, 'totalBytes' | 'images'>): boolean {
  return (Object.keys(wanted) as Array<keyof typeof wanted>).every((k) => m[k] === wanted[k]) && m.images.length === m.count;
}

/** A stat per file (milliseconds for thousands): catches deleted or truncated images. */
function filesIntact(root: string, m: Manifest): boolean {
  try {
    return m.images.every((im) => statSync(join(root, im.file)).size === im.bytes);
  } catch {
    return false;
  }
}

export const main: BenchMain = async (argv) => {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        count: { type: 'string' },
        seed: { type: 'string' },
        classes: { type: 'string' },
        dir: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    console.error(`generate: ${(e as Error).message}`);
    return 2;
  }
  if (values.help) {
    console.log('usage: generate [--count N (env BENCH_COUNT, default 2000)] [--seed S (default 1)] [--classes K (default 10)] [--dir D]');
    return 0;
  }
  try {
    const count = intSetting(values.count, 'count', 'BENCH_COUNT', DEFAULT_COUNT);
    const seed = values.seed === undefined ? DEFAULT_SEED : nonNegativeInt(values.seed, '--seed');
    const classes = intSetting(values.classes, 'classes', 'BENCH_CLASSES', DEFAULT_CLASSES);
    const ds = await ensureImageNetLike({ count, seed, classes, dir: values.dir, onProgress: progressPrinter('generating') });
    console.log(describe(ds));
    return 0;
  } catch (e) {
    if (e instanceof UsageError) {
      console.error(`generate: ${e.message}`);
      return 2;
    }
    throw e;
  }
};

/** One line about a data set, for logs. */
export function describe(ds: ImageNetLike): string {
  const m = ds.manifest;
  const mb = m.totalBytes / 1e6;
  const pixels = m.images.reduce((s, im) => s + im.width * im.height, 0);
  const how = ds.generated ? `generated in ${(ds.elapsedMs / 1000).toFixed(1)} s` : 'reused (manifest matches)';
  return (
    `${ds.root}: ${m.count} images, ${m.classes} classes, ${m.minSide}–${m.maxSide} px, JPEG q${m.quality}, seed ${m.seed}; ` +
    `${mb.toFixed(1)} MB, ${((m.totalBytes * 8) / pixels).toFixed(2)} bits/pixel; ${how}`
  );
}

/** A progress line on stderr (a TTY gets it rewritten in place; logs get a few lines). */
export function progressPrinter(label: string): (done: number, total: number) => void {
  let lastPct = -1;
  return (done, total) => {
    const pct = Math.floor((done / total) * 100);
    if (process.stderr.isTTY) {
      if (pct !== lastPct || done === total) process.stderr.write(`\r${label}: ${done}/${total}${done === total ? '\n' : ''}`);
    } else if (pct % 25 === 0 && pct !== lastPct) {
      process.stderr.write(`${label}: ${done}/${total}\n`);
    }
    lastPct = pct;
  };
}

if (isEntryPoint(import.meta.url)) runAsScript(main);
