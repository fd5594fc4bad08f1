/**
 * The loader benchmark's .beton files: the generated ImageNet-like folder written once per
 * write mode with maxResolution 256 (FFCV's ImageNet setting), cached under .bench/loader/.
 * A sidecar JSON, written last, records the parameters; a file whose sidecar matches (and
 * whose size is the recorded one) is reused, anything else is rebuilt.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DatasetWriter, ImageFolderSource, type RGBImageFieldOptions } from '../../core/index.js';
import type { ImageNetLike } from '../generate-imagenet-like.js';
import { benchScratchDir } from './repo.js';

export const LOADER_MODES = ['jpg', 'smart'] as const;
export type LoaderMode = (typeof LOADER_MODES)[number];

export const MAX_RESOLUTION = 256;
export const JPEG_QUALITY = 90;
/** As the writer benchmark: after the 256 cap, a bit under half the images exceed 256×224×3 and are stored as JPEG. */
export const SMART_THRESHOLD = 256 * 224 * 3;

/** Bump when the way the file is written changes. */
const SIDECAR_VERSION = 2;

export interface LoaderDataset {
  mode: LoaderMode;
  path: string;
  fileSize: number;
  /** Images stored raw / as JPEG. */
  mix: { raw: number; jpg: number };
  /** False when a cached file was reused. */
  built: boolean;
  buildSeconds: number;
}

interface Sidecar {
  version: number;
  mode: LoaderMode;
  maxResolution: number;
  jpegQuality: number;
  smartThreshold: number | null;
  /** The source folder's identity (not its path: a checkout elsewhere reuses the same cache). */
  source: { count: number; seed: number; totalBytes: number };
  fileSize: number;
  mix: { raw: number; jpg: number };
}

export function imageOptions(mode: LoaderMode): RGBImageFieldOptions {
  return {
    writeMode: mode,
    maxResolution: MAX_RESOLUTION,
    jpegQuality: JPEG_QUALITY,
    smartThreshold: mode === 'smart' ? SMART_THRESHOLD : null,
  };
}

/** Returns the .beton of `ds` in `mode`, building it (2 writer workers) unless a matching one is cached. */
export async function ensureLoaderDataset(ds: ImageNetLike, mode: LoaderMode): Promise<LoaderDataset> {
  const m = ds.manifest;
  const dir = join(benchScratchDir(), 'loader');
  const seedPart = m.seed === 1 ? '' : `-s${m.seed}`;
  const path = join(dir, `imagenet-like-${m.count}${seedPart}-${mode}-r${MAX_RESOLUTION}.beton`);
  const sidecarPath = `${path}.json`;
  const opts = imageOptions(mode);
  const wanted: Omit<Sidecar, 'fileSize' | 'mix'> = {
    version: SIDECAR_VERSION,
    mode,
    maxResolution: MAX_RESOLUTION,
    jpegQuality: JPEG_QUALITY,
    smartThreshold: opts.smartThreshold ?? null,
    source: { count: m.count, seed: m.seed, totalBytes: m.totalBytes },
  };
  const cached = readSidecar(sidecarPath);
  if (
    cached &&
    !ds.generated &&
    JSON.stringify({ ...cached, fileSize: undefined, mix: undefined }) ===
      JSON.stringify({ ...wanted, fileSize: undefined, mix: undefined }) &&
    existsSync(path) &&
    statSync(path).size === cached.fileSize
  ) {
    return { mode, path, fileSize: cached.fileSize, mix: cached.mix, built: false, buildSeconds: 0 };
  }
  await mkdir(dir, { recursive: true });
  await rm(sidecarPath, { force: true });
  const partial = `${path}.partial-${process.pid}`;
  const t0 = performance.now();
  try {
    const source = new ImageFolderSource(ds.root);
    const report = await new DatasetWriter(partial, source.schema(opts), { numWorkers: 2 }).write([...source]);
    const modes = report.imageModes['image'] ?? { raw: 0, jpg: 0 };
    await rename(partial, path);
    const sidecar: Sidecar = { ...wanted, fileSize: report.fileSize, mix: { raw: modes.raw, jpg: modes.jpg } };
    await writeFile(sidecarPath, JSON.stringify(sidecar, null, 1) + '\n');
    return { mode, path, fileSize: report.fileSize, mix: sidecar.mix, built: true, buildSeconds: (performance.now() - t0) / 1000 };
  } catch (e) {
    await rm(partial, { force: true });
    throw e;
  }
}

function readSidecar(path: string): Sidecar | null {
  try {
    const s = JSON.parse(readFileSync(path, 'utf8')) as Partial<Sidecar>;
    return s.version === SIDECAR_VERSION && typeof s.fileSize === 'number' && s.mix ? (s as Sidecar) : null;
  } catch {
    return null;
  }
}
