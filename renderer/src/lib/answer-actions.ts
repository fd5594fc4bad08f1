/**
 * The answer's actions (core/api/profile-answer.ts) turned into form patches: pressing one
 * prefills the form that carries it out — a re-sweep the Profile sweep, a rebuild the Build
 * form, an export the Export screen, a switch of engine the engine selector. Pure: the
 * component applies the patches to the stores.
 */
import { IMAGE_WRITE_MODES } from '../../../core/api/constants.js';
import type { ActionParams, AnswerAction } from '../../../core/api/profile-answer.js';
import type { ExportForm } from './export-form.js';
import type { FieldForm } from './build-form.js';
import type { DecoderKind, ProfileForm } from './profile-form.js';
import type { EngineName, OrderName, PointConfig } from './types.js';

type Value = ActionParams[string] | undefined;

const nums = (v: Value): number[] | null =>
  typeof v === 'number' ? [v] : Array.isArray(v) && v.every((x) => typeof x === 'number') ? (v as number[]) : null;
const strs = (v: Value): string[] | null =>
  typeof v === 'string' ? [v] : Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : null;
const bools = (v: Value): boolean[] | null =>
  typeof v === 'boolean' ? [v] : Array.isArray(v) && v.every((x) => typeof x === 'boolean') ? (v as boolean[]) : null;
const list = (xs: readonly number[]): string => xs.join(', ');

const ENGINES: readonly EngineName[] = ['beton', 'ffcv', 'torch'];
const isEngine = (x: string): x is EngineName => (ENGINES as readonly string[]).includes(x);
const ORDERS: readonly string[] = ['random', 'quasi_random', 'sequential'];

/** What a re-sweep (or a re-profile on a quiet machine) sets in the Profile form: only the keys its params carry. */
export function sweepPatch(params: ActionParams): Partial<ProfileForm> {
  const p: Partial<ProfileForm> = { mode: 'grid' };
  const w = nums(params.workers);
  if (w) p.workers = list(w);
  const b = nums(params.batchSizes ?? params.batchSize);
  if (b) p.batchSizes = list(b);
  const o = strs(params.orders ?? params.order);
  if (o) p.orders = o.filter((x) => ORDERS.includes(x)) as OrderName[];
  const c = bools(params.osCache);
  if (c) p.caches = c;
  const e = strs(params.engines ?? params.engine);
  if (e) p.engines = e.filter(isEngine);
  if (typeof params.file === 'string') p.file = params.file;
  if (typeof params.source === 'string') p.source = params.source;
  if (typeof params.secondsPerPoint === 'number') p.secondsPerPoint = String(params.secondsPerPoint);
  if (typeof params.batchesAhead === 'number') p.batchesAhead = String(params.batchesAhead);
  if (typeof params.stages === 'boolean') p.stages = params.stages;
  if (typeof params.python === 'string') p.python = params.python;
  if (typeof params.flip === 'boolean') p.flip = params.flip;
  if (typeof params.trainWith === 'string' && isEngine(params.trainWith)) p.trainWith = params.trainWith;
  if (typeof params.decoder === 'string') {
    const [kind, size] = params.decoder.split(':');
    if (kind === 'simple' || kind === 'rrc' || kind === 'center') {
      p.decoder = kind;
      if (size) p.decoderSize = size;
    }
  }
  return p;
}

/** A training command's sweep over worker counts (exec-sweep): the Training command tab with its grid. */
export function execSweepPatch(params: ActionParams): Partial<ProfileForm> {
  const p: Partial<ProfileForm> = { mode: 'exec' };
  const w = nums(params.workers);
  if (w) p.execWorkers = list(w);
  const b = nums(params.batchSizes ?? params.batchSize);
  if (b) p.execBatchSizes = list(b);
  if (typeof params.command === 'string') p.command = params.command;
  if (typeof params.file === 'string') p.execFile = params.file;
  if (typeof params.throughputRegex === 'string') p.throughputRegex = params.throughputRegex;
  if (typeof params.secondsPerPoint === 'number') p.execSeconds = String(params.secondsPerPoint);
  return p;
}

/** Train with one filled command (run-command): the Training command tab with it, run once (no grid). */
export function runCommandPatch(params: ActionParams): Partial<ProfileForm> {
  return { mode: 'exec', execWorkers: '', execBatchSizes: '', ...(typeof params.command === 'string' ? { command: params.command } : {}) };
}

/** Switch engine: the engine selector names it as the one trained with, and the sweep measures it. */
export function switchEnginePatch(params: ActionParams, form: Pick<ProfileForm, 'engines'>): Partial<ProfileForm> {
  const e = typeof params.engine === 'string' && isEngine(params.engine) ? params.engine : null;
  if (!e) return { mode: 'grid' };
  const swept = sweepPatch(params);
  const engines = swept.engines ?? form.engines;
  return { ...swept, mode: 'grid', trainWith: e, engines: engines.includes(e) ? engines : [...engines, e] };
}

/** The point an action names: `params.point` (a PointResult.index), else the settings it carries. */
export function pointOf(params: ActionParams, points: ReadonlyArray<{ index: number; config: PointConfig }>): PointConfig | null {
  const named = typeof params.point === 'number' ? points.find((p) => p.index === params.point) : undefined;
  if (named) return named.config;
  const w = nums(params.workers)?.[0];
  const b = nums(params.batchSize ?? params.batchSizes)?.[0];
  if (w === undefined || b === undefined) return null;
  const o = strs(params.order ?? params.orders)?.[0];
  const c = bools(params.osCache)?.[0];
  return { workers: w, batchSize: b, order: (o && ORDERS.includes(o) ? o : 'random') as OrderName, osCache: c ?? true };
}

/** The Export screen's fields for a point: every setting exported is one that was measured (the point's, and the plan's decoder, flip, batches ahead). */
export function exportPatch(
  file: string,
  point: PointConfig,
  plan: { decoder?: string | undefined; flip?: boolean | undefined; batchesAhead?: number | undefined } | null,
): Partial<ExportForm> {
  const [kind, size] = (plan?.decoder ?? 'rrc:160').split(':');
  return {
    file,
    batchSize: String(point.batchSize),
    numWorkers: String(point.workers),
    order: point.order,
    osCache: point.osCache,
    batchesAhead: plan?.batchesAhead !== undefined ? String(plan.batchesAhead) : '',
    ...(plan ? { decoder: kind as DecoderKind, ...(size ? { size } : {}), flip: plan.flip ?? true, normalize: false } : {}),
  };
}

/** A rebuild's options on the Build form: the image fields' storage and the page size, only those the params carry. */
export function rebuildPatch(params: ActionParams): { field: Partial<FieldForm>; pageSizeMiB?: string } {
  const field: Partial<FieldForm> = {};
  const mode = IMAGE_WRITE_MODES.find((m) => m === params.writeMode);
  if (mode) field.writeMode = mode;
  if (typeof params.maxResolution === 'number') field.maxResolution = String(params.maxResolution);
  if (typeof params.jpegQuality === 'number') field.jpegQuality = String(params.jpegQuality);
  if (typeof params.smartThreshold === 'number') field.smartThreshold = String(params.smartThreshold);
  if (typeof params.compressProbability === 'number') field.compressProbability = String(params.compressProbability);
  const page =
    typeof params.pageSize === 'number' ? params.pageSize / 2 ** 20 : typeof params.pageSizeMiB === 'number' ? params.pageSizeMiB : null;
  return page === null ? { field } : { field, pageSizeMiB: String(page) };
}

/** Whether the app can carry an action out (an unknown id from a newer host is shown, not pressed). */
export const actionable = (a: AnswerAction): boolean =>
  ['resweep', 'rebuild', 'export', 'switch-engine', 'reprofile-idle', 'profile-loader', 'exec-sweep', 'run-command'].includes(a.id);
