import { DEFAULT_IMAGE_WRITE_MODE, DEFAULT_MAX_RESOLUTION, DEFAULT_SMART_THRESHOLD, JPEG_QUALITY } from '../api/constants.js';
import type { BuildRequest, ClipOptions, ImageOptions } from '../app/plan-build.js';
import { parseRangeSpec, parseShard } from '../app/shards.js';
import { UsageError } from './usage-error.js';

/**
 * The `beton build` flags that set a value of the build: one row each, from which the
 * parser's options, the help's lines and the request core/app plans are all made. A build
 * option both the CLI and the app offer is a key in api/build-config.ts, a row here and a
 * control in the app's build form.
 */
interface ValueFlag {
  flag: string;
  /** The placeholder in the help ('' for a switch). */
  arg: string;
  /** The help text, one string a line (continuation lines are indented under the first). */
  help: string[];
  /** Where the value goes: a build config key, an image option, or a video clipping option. */
  to: { config: string } | { image: keyof ImageOptions } | { clip: keyof ClipOptions };
  /** The flag's text as the value (default: a number); a switch gets true. */
  parse?: (text: string, flag: string) => unknown;
}

const text = (t: string): string => t;
const slice = (parse: (t: string) => unknown) => (t: string) => {
  try {
    return parse(t);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
};

export const BUILD_VALUE_FLAGS = [
  {
    flag: 'on-error',
    arg: 'fail|skip',
    help: ['fail: stop at the first bad sample, no output (default);', 'skip: leave bad samples out, list them in OUT.skipped.json'],
    to: { config: 'onError' },
    parse: text,
  },
  {
    flag: 'range',
    arg: 'a:b',
    help: ['build only samples a..b-1 (Python slice bounds)'],
    to: { config: 'range' },
    parse: slice(parseRangeSpec),
  },
  {
    flag: 'shard',
    arg: 'k/N',
    help: ['build shard k (0-based) of N contiguous shards (and write', 'OUT.progress.json for beton build --status)'],
    to: { config: 'shard' },
    parse: slice(parseShard),
  },
  { flag: 'pass-through', arg: '', help: ['store qualifying source JPEGs unchanged (no re-encode)'], to: { image: 'passThrough' } },
  {
    flag: 'write-mode',
    arg: 'MODE',
    help: [`raw | jpg | smart | proportion (default ${DEFAULT_IMAGE_WRITE_MODE}; FFCV's is raw)`],
    to: { image: 'writeMode' },
    parse: text,
  },
  {
    flag: 'max-resolution',
    arg: 'N|none',
    help: [
      `cap the longer side at N pixels, area resampling (default ${DEFAULT_MAX_RESOLUTION};`,
      "none keeps every pixel, as FFCV's default)",
    ],
    to: { image: 'maxResolution' },
    parse: (t, flag) => (t === 'none' ? null : number(t, flag)),
  },
  { flag: 'jpeg-quality', arg: 'Q', help: [`1..100 (default ${JPEG_QUALITY.default})`], to: { image: 'jpegQuality' } },
  {
    flag: 'smart-threshold',
    arg: 'BYTES',
    help: [`smart mode: JPEG when h*w*3 > BYTES (default ${DEFAULT_SMART_THRESHOLD}: 64x64)`],
    to: { image: 'smartThreshold' },
  },
  {
    flag: 'compress-probability',
    arg: 'P',
    help: ['proportion mode: JPEG with probability P (default 0.5)'],
    to: { image: 'compressProbability' },
  },
  { flag: 'page-size', arg: 'BYTES', help: ['power of two >= 2 MiB (default 8 MiB)'], to: { config: 'pageSize' } },
  { flag: 'workers', arg: 'N', help: ['encoder threads (default: cores)'], to: { config: 'numWorkers' } },
  {
    flag: 'seed',
    arg: 'N',
    help: ['the seed of per-sample draws (proportion mode, default 0): same seed, same file'],
    to: { config: 'seed' },
  },
  {
    flag: 'clip-length',
    arg: 'T',
    help: ['videos: frames per clip (a sample: clip, label, video_id, start_frame)'],
    to: { clip: 'clipLength' },
  },
  { flag: 'stride', arg: 'S', help: ['videos: frames between clip starts (default T)'], to: { clip: 'stride' } },
  { flag: 'fps', arg: 'F', help: ["videos: resample to F frames/s first (default: each video's rate)"], to: { clip: 'fps' } },
  {
    flag: 'ffmpeg',
    arg: 'PATH',
    help: [
      'videos: the ffmpeg executable (default: ffmpeg on PATH)',
      '(--write-mode jpg|raw, --max-resolution, --jpeg-quality apply to the clip frames)',
    ],
    to: { clip: 'ffmpeg' },
    parse: text,
  },
] as const satisfies readonly ValueFlag[];

function number(t: string, flag: string): number {
  const n = Number(t);
  if (t.trim() === '' || !Number.isFinite(n)) throw new UsageError(`--${flag} expects a number, got "${t}"`);
  return n;
}

type Row = (typeof BUILD_VALUE_FLAGS)[number];

/** parseArgs options for the rows (typed by flag, so the parsed values are too). */
export const BUILD_VALUE_OPTIONS = Object.fromEntries(
  BUILD_VALUE_FLAGS.map((f) => [f.flag, { type: f.arg === '' ? 'boolean' : 'string' }]),
) as { [R in Row as R['flag']]: { type: R['arg'] extends '' ? 'boolean' : 'string' } };

/** The rows' help lines, aligned as the rest of the help. */
export function buildValueHelp(): string {
  const col = 31;
  return BUILD_VALUE_FLAGS.flatMap((f) => {
    const head = `  --${f.flag}${f.arg ? ' ' + f.arg : ''}`;
    const [first = '', ...rest] = f.help;
    return [head.padEnd(col) + first, ...rest.map((l) => ' '.repeat(col) + l)];
  }).join('\n');
}

/** The parsed flags as what they set: config keys, image options, clipping. */
export function buildValues(values: Record<string, string | boolean | undefined>): {
  config: Record<string, unknown>;
  image: BuildRequest['image'] & object;
  clip: ClipOptions;
} {
  const config: Record<string, unknown> = {};
  const image: Record<string, unknown> = {};
  const clip: Record<string, unknown> = {};
  for (const f of BUILD_VALUE_FLAGS as readonly ValueFlag[]) {
    const raw = values[f.flag];
    if (raw === undefined || raw === false) continue;
    const v = raw === true ? true : (f.parse ?? number)(raw, f.flag);
    if ('config' in f.to) config[f.to.config] = v;
    else if ('image' in f.to) image[f.to.image] = v;
    else clip[f.to.clip] = v;
  }
  return { config, image: image as Partial<ImageOptions>, clip: clip as ClipOptions };
}
