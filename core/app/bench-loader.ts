/**
 * `beton bench-loader`: a file loaded for a few epochs with a decoder, timed
 * (profile/bench-loader.ts). A remote file's disk cache is checked before anything is opened.
 */
import { benchLoader, type BenchLoaderOptions, type BenchLoaderResult } from '../profile/engines/bench-loader.js';
import { usableCacheDir } from '../remote/disk-cache.js';

/** What a front end checks a decoder spec with ('simple', 'rrc:SIZE' or 'center:SIZE'). */
export { DECODER_SPEC } from '../profile/engines/bench-loader.js';

/** Benchmarks the loader on `file`; a cache folder that cannot be written is CACHE_DIR_UNUSABLE before the open. */
export async function benchLoaderFile(file: string, options: BenchLoaderOptions): Promise<BenchLoaderResult> {
  if (options.remote?.cacheDir !== undefined) usableCacheDir(options.remote.cacheDir);
  return benchLoader(file, options);
}
