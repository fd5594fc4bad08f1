import {
  DEFAULT_IMAGE_WRITE_MODE,
  DEFAULT_MAX_RESOLUTION,
  DEFAULT_SMART_THRESHOLD,
  IMAGE_WRITE_MODES,
  JPEG_QUALITY,
  ON_ERROR,
} from '../api/constants.js';
import type { BuildRequest, ClipOptions, ImageOptions } from '../app/plan-build.js';
import { parseRangeSpec, parseShard } from '../writer/selection.js';
import { switchFlag, valueFlag, type Flag, type FlagValues } from './flags/flag-table.js';
import { decimal, integer, madeBy, oneOf, orWord, path, size } from './flags/parsers.js';

/** Where a build flag's value goes: a build config key, an image option, or a video clipping option. */
type Target = { config: string } | { image: keyof ImageOptions } | { clip: keyof ClipOptions };

/** A flag row of the kit (flags/flag-table.ts) with where its value goes. */
const to = <F extends Flag>(flag: F, target: Target): F & { to: Target } => ({ ...flag, to: target });

/**
 * The `beton build` flags that set a value of the build: one row each, from which the
 * parser's options, the help's lines, the value checks and the request core/app plans are
 * all made. A build option both the CLI and the app offer is a key in api/build-config.ts, a
 * row here and a control in the app's build form. Bounds the contract states (api/constants.ts)
 * are the parsers' too, so a bad flag is refused in the one bad-value wording.
 */
export const BUILD_VALUE_FLAGS = {
  'on-error': to(
    valueFlag('fail|skip', oneOf(ON_ERROR), [
      'fail: stop at the first bad sample, no output (default);',
      'skip: leave bad samples out, list them in OUT.skipped.json',
    ]),
    { config: 'onError' },
  ),
  range: to(valueFlag('a:b', madeBy(parseRangeSpec, 'a:b (e.g. 0:1000)'), 'build only samples a..b-1 (Python slice bounds)'), {
    config: 'range',
  }),
  shard: to(
    valueFlag('k/N', madeBy(parseShard, 'k/N with 0 <= k < N'), [
      'build shard k (0-based) of N contiguous shards (and write',
      'OUT.progress.json for beton build --status)',
    ]),
    { config: 'shard' },
  ),
  'pass-through': to(switchFlag('store qualifying source JPEGs unchanged (no re-encode)'), { image: 'passThrough' }),
  'write-mode': to(
    valueFlag('MODE', oneOf(IMAGE_WRITE_MODES), `raw | jpg | smart | proportion (default ${DEFAULT_IMAGE_WRITE_MODE}; FFCV's is raw)`),
    { image: 'writeMode' },
  ),
  'max-resolution': to(
    valueFlag('N|none', orWord(integer({ min: 1 }), 'none', null), [
      `cap the longer side at N pixels, area resampling (default ${DEFAULT_MAX_RESOLUTION};`,
      "none keeps every pixel, as FFCV's default)",
    ]),
    { image: 'maxResolution' },
  ),
  'jpeg-quality': to(
    valueFlag('Q', integer({ min: JPEG_QUALITY.min, max: JPEG_QUALITY.max }), `1..100 (default ${JPEG_QUALITY.default})`),
    { image: 'jpegQuality' },
  ),
  'smart-threshold': to(
    valueFlag('BYTES', size({ min: 1 }), `smart mode: JPEG when h*w*3 > BYTES (default ${DEFAULT_SMART_THRESHOLD}: 64x64)`),
    { image: 'smartThreshold' },
  ),
  'compress-probability': to(valueFlag('P', decimal({ min: 0, max: 1 }), 'proportion mode: JPEG with probability P (default 0.5)'), {
    image: 'compressProbability',
  }),
  'page-size': to(valueFlag('BYTES', size({ min: 1 }), 'power of two >= 2 MiB (default 8 MiB)'), { config: 'pageSize' }),
  workers: to(valueFlag('N', integer({ min: 0 }), 'encoder threads (default: cores)'), { config: 'numWorkers' }),
  seed: to(valueFlag('N', integer(), 'the seed of per-sample draws (proportion mode, default 0): same seed, same file'), {
    config: 'seed',
  }),
  'clip-length': to(
    valueFlag('T', integer({ min: 1, max: 65535 }), 'videos: frames per clip (a sample: clip, label, video_id, start_frame)'),
    { clip: 'clipLength' },
  ),
  stride: to(valueFlag('S', integer({ min: 1 }), 'videos: frames between clip starts (default T)'), { clip: 'stride' }),
  fps: to(valueFlag('F', decimal({ above: 0 }), "videos: resample to F frames/s first (default: each video's rate)"), {
    clip: 'fps',
  }),
  ffmpeg: to(
    valueFlag('PATH', path(), [
      'videos: the ffmpeg executable (default: ffmpeg on PATH)',
      '(--write-mode jpg|raw, --max-resolution, --jpeg-quality apply to the clip frames)',
    ]),
    { clip: 'ffmpeg' },
  ),
};

/** The parsed flags as what they set: config keys, image options, clipping. */
export function buildValues(values: Partial<FlagValues<typeof BUILD_VALUE_FLAGS>>): {
  config: Record<string, unknown>;
  image: BuildRequest['image'] & object;
  clip: ClipOptions;
} {
  const config: Record<string, unknown> = {};
  const image: Record<string, unknown> = {};
  const clip: Record<string, unknown> = {};
  for (const [name, f] of Object.entries(BUILD_VALUE_FLAGS)) {
    const v = (values as Record<string, unknown>)[name];
    if (v === undefined || v === false) continue;
    if ('config' in f.to) config[f.to.config] = v;
    else if ('image' in f.to) image[f.to.image] = v;
    else clip[f.to.clip] = v;
  }
  return { config, image: image as Partial<ImageOptions>, clip: clip as ClipOptions };
}
