/** The Profile screen's form: a grid sweep or a training command, validated into profiles.start params. */
import { LOADER_DEFAULTS } from '../../../core/api/constants.js';
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

export const DEFAULT_PROFILE_FORM: ProfileForm = {
  mode: 'grid',
  file: '',
  workers: '',
  batchSizes: '256',
  orders: ['random'],
  caches: [true],
  decoder: 'rrc',
  decoderSize: '160',
  flip: true,
  secondsPerPoint: '3',
  warmupBatches: '2',
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

/** The sweep's grid in the order the profiler measures it (cache, order, batch size, then workers innermost). */
export function gridOf(
  workers: number[],
  batchSizes: number[],
  orders: OrderName[],
  caches: boolean[],
  engines?: readonly EngineName[],
): PointConfig[] {
  const grid: PointConfig[] = [];
  // Engines outermost, as the profiler runs them (ours first, then each Python engine's points).
  for (const engine of engines ?? [null])
    for (const osCache of caches)
      for (const order of orders)
        for (const batchSize of batchSizes)
          for (const w of workers) grid.push({ workers: w, batchSize, order, osCache, ...(engine ? { engine } : {}) });
  return grid;
}

/** The engines in the profiler's order (beton, ffcv, torch), or null when it is beton alone (plans keep their old shape). */
export function enginesOf(picked: readonly EngineName[]): EngineName[] | null {
  const order: EngineName[] = ['beton', 'ffcv', 'torch'];
  const e = order.filter((x) => picked.includes(x));
  return e.length === 1 && e[0] === 'beton' ? null : e;
}

/** Default worker grid as the profiler picks it: 1, 2, 4 … below the core count, then the core count. */
export function defaultWorkers(cores: number): number[] {
  const out: number[] = [];
  for (let w = 1; w < cores; w *= 2) out.push(w);
  out.push(Math.max(1, cores));
  return out;
}

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
    if (Object.keys(errors).length) return { errors, params: null, grid: [] };
    return {
      errors,
      grid: [],
      params: {
        exec: { command: form.command.trim(), throughputRegex: form.throughputRegex.trim() || null, file: form.execFile.trim() || null },
      },
    };
  }
  if (!form.file.trim()) errors.file = 'Choose a .beton file to profile.';
  const workers = parseIntList(form.workers);
  if (workers === null) errors.workers = 'Workers: whole numbers separated by commas, e.g. 1, 2, 4.';
  else if (workers.length > 16) errors.workers = 'At most 16 worker counts.';
  const batchSizes = parseIntList(form.batchSizes);
  if (batchSizes === null || !batchSizes.length) errors.batchSizes = 'Batch sizes: whole numbers separated by commas, e.g. 256.';
  else if (batchSizes.length > 8) errors.batchSizes = 'At most 8 batch sizes.';
  else if (batchSizes.some((b) => b > 4096)) errors.batchSizes = 'Batch sizes up to 4096.';
  else if (ctx.numSamples !== null && batchSizes.some((b) => b > ctx.numSamples!))
    errors.batchSizes = `The dataset has ${ctx.numSamples} samples: every batch size must be at most that.`;
  if (!form.orders.length) errors.orders = 'Pick at least one order.';
  if (!form.caches.length) errors.caches = 'Pick at least one cache.';
  if (form.decoder !== 'simple' && !(Number(form.decoderSize) >= 8 && Number.isInteger(Number(form.decoderSize))))
    errors.decoderSize = 'Crop size: a whole number of pixels, at least 8.';
  const secs = Number(form.secondsPerPoint);
  if (!(secs > 0 && secs <= 600)) errors.secondsPerPoint = 'Seconds per point: more than 0, at most 600.';
  const warm = Number(form.warmupBatches);
  if (!(Number.isInteger(warm) && warm >= 0)) errors.warmupBatches = 'Warm-up batches: a whole number, 0 or more.';
  const ahead = form.batchesAhead.trim() === '' ? null : Number(form.batchesAhead);
  if (ahead !== null && !(Number.isInteger(ahead) && ahead >= 1 && ahead <= 64))
    errors.batchesAhead = `Batches ahead: a whole number from 1 to 64 (empty: the loader's default, ${LOADER_DEFAULTS.batchesAhead}).`;
  if (!form.engines.length) errors.engines = 'Pick at least one engine.';
  if (form.engines.includes('torch') && !form.source.trim())
    errors.source = 'The torch engine reads the image folder the .beton was built from: choose it.';
  if (form.engines.includes('torch') && form.decoder === 'simple')
    errors.engines = 'The torch engine needs a crop decoder: full-size images of different sizes do not batch.';
  if (Object.keys(errors).length) return { errors, params: null, grid: [] };
  const w = workers!.length ? workers! : defaultWorkers(ctx.cores);
  const engines = enginesOf(form.engines);
  return {
    errors,
    grid: gridOf(w, batchSizes!, form.orders, form.caches, engines ?? undefined),
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
      },
    },
  };
}

export function pointLabel(c: PointConfig): string {
  return `${c.engine ? `${c.engine} · ` : ''}${c.workers}w · bs ${c.batchSize} · ${c.order.replace('_', '-')} · ${c.osCache ? 'os cache' : 'process cache'}`;
}
