/**
 * The Profile screen's form: a grid sweep or a training command, validated into profiles.start
 * params. The grid, its defaults, bounds, engine names and point labels are the plan module's
 * (core/api/profile-plan.ts), the one the sweep itself reads: the renderer builds no grid of its own.
 */
import {
  defaultWorkers,
  ENGINE_NAMES,
  execPlaceholdersIn,
  execPointsOf,
  EXEC_PLACEHOLDERS,
  pointLabel,
  pointsOf,
  PROFILE_BOUNDS,
  PROFILE_DEFAULTS,
} from '../../../core/api/profile-plan.js';
import type { Params } from '../../../core/api/contract.js';
import type { FormErrors } from './build-form.js';
import type { EngineName, OrderName, PointConfig } from './types.js';

export type DecoderKind = 'simple' | 'rrc' | 'center';
/** The image decoders the Profile and Export forms offer, as they name them. */
export const DECODER_OPTIONS: ReadonlyArray<{ value: DecoderKind; label: string }> = [
  { value: 'rrc', label: 'Random resized crop' },
  { value: 'center', label: 'Center crop' },
  { value: 'simple', label: 'Simple (full image)' },
];

export interface ProfileForm {
  mode: 'grid' | 'exec';
  file: string;
  /** Comma-separated; '' = 1, 2, 4 … cores (the host's default). */
  workers: string;
  batchSizes: string;
  orders: OrderName[];
  /** true = OS page cache, false = process cache. */
  caches: boolean[];
  decoder: DecoderKind;
  decoderSize: string;
  flip: boolean;
  secondsPerPoint: string;
  warmupBatches: string;
  /** Batches the loader decodes ahead of the consumer; '' = the loader's default (3). */
  batchesAhead: string;
  command: string;
  throughputRegex: string;
  /**
   * The .beton the training command reads, if any: its own field, not `file` (the sweep's),
   * so a command run is never attributed to whatever the sweep tab last held.
   */
  execFile: string;
  /** Engines over the same grid: beton (ours), ffcv (real FFCV in the server's Python), torch (torchvision over `source`). */
  engines: EngineName[];
  /** The image folder the torch engine reads (the folder the .beton was built from). */
  source: string;
  /** FFCV's per-stage costs by ablation (pipeline prefixes; takes longer). Ours are always timed in the workers. */
  stages: boolean;
  /** The Python interpreter for the FFCV and torch engines ('' = the server's own, `beton serve --python`, else python3). */
  python: string;
  /** The engine the user trains with ('' = the answer picks: FFCV when measured, else torch, else ours). */
  trainWith: EngineName | '';
  /** A training command's sweep: worker counts filled into its {workers} ('' = run the command once). */
  execWorkers: string;
  /** …and batch sizes filled into {batch_size} ('' = none). */
  execBatchSizes: string;
  /** Seconds each run of the command is sampled ('' = until it exits). */
  execSeconds: string;
}

const [defaultDecoder, defaultSize] = PROFILE_DEFAULTS.decoder.split(':') as [DecoderKind, string];

export const DEFAULT_PROFILE_FORM: ProfileForm = {
  mode: 'grid',
  file: '',
  workers: '',
  batchSizes: String(PROFILE_DEFAULTS.batchSize),
  orders: [...PROFILE_DEFAULTS.orders],
  caches: [...PROFILE_DEFAULTS.osCache],
  decoder: defaultDecoder,
  decoderSize: defaultSize,
  flip: PROFILE_DEFAULTS.flip,
  secondsPerPoint: String(PROFILE_DEFAULTS.secondsPerPoint),
  warmupBatches: String(PROFILE_DEFAULTS.warmupBatches),
  batchesAhead: '',
  command: '',
  throughputRegex: '',
  execFile: '',
  engines: ['beton'],
  source: '',
  stages: false,
  python: '',
  trainWith: '',
  execWorkers: '',
  execBatchSizes: '',
  execSeconds: '',
};

/** "1, 2,4" → [1, 2, 4]; null when any part is not a positive whole number. */
export function parseIntList(s: string): number[] | null {
  const parts = s.split(/[,\s]+/).filter(Boolean);
  if (!parts.length) return [];
  const out: number[] = [];
  for (const p of parts) {
    if (!/^\d+$/.test(p) || Number(p) <= 0) return null;
    if (!out.includes(Number(p))) out.push(Number(p));
  }
  return out;
}

export function decoderSpec(kind: DecoderKind, size: string): string {
  return kind === 'simple' ? 'simple' : `${kind}:${size.trim()}`;
}

/** The engines in the profiler's order (beton, ffcv, torch), or null when it is beton alone (plans keep their old shape). */
export function enginesOf(picked: readonly EngineName[]): EngineName[] | null {
  const e = ENGINE_NAMES.filter((x) => picked.includes(x));
  return e.length === 1 && e[0] === 'beton' ? null : e;
}

// The plan module's, re-exported for the screens that read them from here.
export { defaultWorkers, pointLabel };

export function validateProfileForm(
  form: ProfileForm,
  ctx: { cores: number; numSamples: number | null },
): { errors: FormErrors; params: Params<'profiles.start'> | null; grid: PointConfig[] } {
  const errors: FormErrors = {};
  if (form.mode === 'exec') {
    if (!form.command.trim()) errors.command = 'Give the training command to run and sample.';
    if (form.throughputRegex.trim()) {
      try {
        new RegExp(form.throughputRegex);
        if (!form.throughputRegex.includes('(?<images>'))
          errors.throughputRegex = 'The pattern needs a named group (?<images>…) holding the images count.';
      } catch (e) {
        errors.throughputRegex = `Not a valid pattern: ${(e as Error).message}`;
      }
    }
    // A sweep of the command: each worker count (and batch size) filled into its placeholders.
    const ew = parseIntList(form.execWorkers);
    const eb = parseIntList(form.execBatchSizes);
    const has = execPlaceholdersIn(form.command);
    if (ew === null) errors.execWorkers = 'Workers: whole numbers separated by commas, e.g. 1, 2, 4.';
    else if (ew.length > PROFILE_BOUNDS.maxWorkerValues) errors.execWorkers = `At most ${PROFILE_BOUNDS.maxWorkerValues} worker counts.`;
    else if (ew.length && form.command.trim() && !has.workers)
      errors.execWorkers = `Put ${EXEC_PLACEHOLDERS.workers} in the command where it takes its worker count: each value is filled in there.`;
    if (eb === null) errors.execBatchSizes = 'Batch sizes: whole numbers separated by commas, e.g. 256.';
    else if (eb.length > PROFILE_BOUNDS.maxBatchSizeValues)
      errors.execBatchSizes = `At most ${PROFILE_BOUNDS.maxBatchSizeValues} batch sizes.`;
    else if (eb.some((b) => b > PROFILE_BOUNDS.maxBatchSize)) errors.execBatchSizes = `Batch sizes up to ${PROFILE_BOUNDS.maxBatchSize}.`;
    else if (eb.length && form.command.trim() && !has.batchSize)
      errors.execBatchSizes = `Put ${EXEC_PLACEHOLDERS.batchSize} in the command where it takes its batch size.`;
    const es = form.execSeconds.trim() === '' ? null : Number(form.execSeconds);
    if (es !== null && !(es > 0 && es <= PROFILE_BOUNDS.maxSecondsPerPoint))
      errors.execSeconds = `Seconds per run: more than 0, at most ${PROFILE_BOUNDS.maxSecondsPerPoint} (empty: each run to its end).`;
    if (Object.keys(errors).length) return { errors, params: null, grid: [] };
    const sweep = {
      ...(ew!.length ? { workers: ew! } : {}),
      ...(eb!.length ? { batchSizes: eb! } : {}),
      ...(es !== null ? { secondsPerPoint: es } : {}),
    };
    const points = ew!.length || eb!.length ? execPointsOf(sweep) : [];
    return {
      errors,
      // A training command's grid: one point per filled command (no loader settings of ours: order and cache are placeholders).
      grid: points.map((p) => ({ workers: p.workers ?? 0, batchSize: p.batchSize ?? 0, order: 'sequential' as const, osCache: true })),
      params: {
        exec: {
          command: form.command.trim(),
          throughputRegex: form.throughputRegex.trim() || null,
          file: form.execFile.trim() || null,
          ...sweep,
        },
      },
    };
  }
  if (!form.file.trim()) errors.file = 'Choose a .beton file to profile.';
  const workers = parseIntList(form.workers);
  if (workers === null) errors.workers = 'Workers: whole numbers separated by commas, e.g. 1, 2, 4.';
  else if (workers.length > PROFILE_BOUNDS.maxWorkerValues) errors.workers = `At most ${PROFILE_BOUNDS.maxWorkerValues} worker counts.`;
  const batchSizes = parseIntList(form.batchSizes);
  if (batchSizes === null || !batchSizes.length) errors.batchSizes = 'Batch sizes: whole numbers separated by commas, e.g. 256.';
  else if (batchSizes.length > PROFILE_BOUNDS.maxBatchSizeValues)
    errors.batchSizes = `At most ${PROFILE_BOUNDS.maxBatchSizeValues} batch sizes.`;
  else if (batchSizes.some((b) => b > PROFILE_BOUNDS.maxBatchSize)) errors.batchSizes = `Batch sizes up to ${PROFILE_BOUNDS.maxBatchSize}.`;
  else if (ctx.numSamples !== null && batchSizes.some((b) => b > ctx.numSamples!))
    errors.batchSizes = `The dataset has ${ctx.numSamples} samples: every batch size must be at most that.`;
  if (!form.orders.length) errors.orders = 'Pick at least one order.';
  if (!form.caches.length) errors.caches = 'Pick at least one cache.';
  if (form.decoder !== 'simple' && !(Number(form.decoderSize) >= 8 && Number.isInteger(Number(form.decoderSize))))
    errors.decoderSize = 'Crop size: a whole number of pixels, at least 8.';
  const secs = Number(form.secondsPerPoint);
  if (!(secs > 0 && secs <= PROFILE_BOUNDS.maxSecondsPerPoint))
    errors.secondsPerPoint = `Seconds per point: more than 0, at most ${PROFILE_BOUNDS.maxSecondsPerPoint}.`;
  const warm = Number(form.warmupBatches);
  if (!(Number.isInteger(warm) && warm >= 0)) errors.warmupBatches = 'Warm-up batches: a whole number, 0 or more.';
  const ahead = form.batchesAhead.trim() === '' ? null : Number(form.batchesAhead);
  if (ahead !== null && !(Number.isInteger(ahead) && ahead >= PROFILE_BOUNDS.minBatchesAhead && ahead <= PROFILE_BOUNDS.maxBatchesAhead))
    errors.batchesAhead = `Batches ahead: a whole number from ${PROFILE_BOUNDS.minBatchesAhead} to ${PROFILE_BOUNDS.maxBatchesAhead} (empty: the loader's default, ${PROFILE_DEFAULTS.batchesAhead}).`;
  if (!form.engines.length) errors.engines = 'Pick at least one engine.';
  if (form.engines.includes('torch') && !form.source.trim())
    errors.source = 'The torch engine reads the image folder the .beton was built from: choose it.';
  if (form.engines.includes('torch') && form.decoder === 'simple')
    errors.engines = 'The torch engine needs a crop decoder: full-size images of different sizes do not batch.';
  if (form.python.trim() && !form.python.trim().startsWith('/'))
    errors.python = "The Python interpreter: an absolute path, e.g. /usr/bin/python3 (empty: the server's own).";
  if (Object.keys(errors).length) return { errors, params: null, grid: [] };
  const w = workers!.length ? workers! : defaultWorkers(ctx.cores);
  const engines = enginesOf(form.engines);
  return {
    errors,
    // The plan module's grid, in the sweep's own order: point i of the run is grid[i].
    grid: pointsOf({ workers: w, batchSizes: batchSizes!, orders: form.orders, osCache: form.caches, ...(engines ? { engines } : {}) }),
    params: {
      plan: {
        file: form.file.trim(),
        ...(workers!.length ? { workers: workers! } : {}),
        batchSizes: batchSizes!,
        orders: form.orders,
        osCache: form.caches,
        decoder: decoderSpec(form.decoder, form.decoderSize),
        flip: form.flip,
        secondsPerPoint: secs,
        warmupBatches: warm,
        ...(ahead !== null ? { batchesAhead: ahead } : {}),
        ...(engines ? { engines } : {}),
        ...(engines?.includes('torch') ? { source: form.source.trim() } : {}),
        ...(form.stages ? { stages: true } : {}),
        ...(form.trainWith ? { trainWith: form.trainWith } : {}),
        ...(form.python.trim() && engines?.some((e) => e !== 'beton') ? { python: form.python.trim() } : {}),
      },
    },
  };
}
