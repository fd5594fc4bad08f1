/**
 * The answer's actions, ranked (the first is what to do next): each an id a front end can
 * carry out and its params — a re-sweep's whole plan (so the app can prefill its form and the
 * CLI print the command from the params alone, core/profile/verdict/action-command.ts), build options,
 * the point to export, the engine to switch to as a fact with both numbers. Pure.
 */
import type { ActionParams, AnswerAction, Bottleneck, EngineBest } from '../../api/profile-answer.js';
import type { DatasetInfo, EngineName, ExecPlan, MachineInfo, PointResult, ProfilePlan } from '../../api/profile-model.js';
import { ENGINE_LABELS, PROFILE_DEFAULTS, execPlaceholdersIn, fillCommand } from '../../api/profile-plan.js';
import * as f from './verdict-format.js';

export interface ActionContext {
  mode: 'sweep' | 'exec';
  plan: ProfilePlan | ExecPlan;
  machine: MachineInfo;
  dataset: DatasetInfo | null;
  /** The trained-with engine's best point (a sweep), or an exec sweep's chosen point. */
  best: PointResult | null;
  /** The trained-with engine's measured points. */
  points: readonly PointResult[];
  all: readonly PointResult[];
  contended?: boolean;
  engines?: Partial<Record<EngineName, EngineBest>>;
  noise?: number | null;
  /** An exec sweep: a point kept the wait under 5%. */
  keeps?: boolean;
}

/** A sweep plan as action params: what `beton profile` takes, with `changes` applied. */
export function sweepParams(plan: ProfilePlan, changes: ActionParams = {}): ActionParams {
  const p: ActionParams = {
    file: plan.file,
    workers: plan.workers,
    batchSizes: plan.batchSizes,
    orders: plan.orders,
    osCache: plan.osCache,
    decoder: plan.decoder,
    flip: plan.flip,
    secondsPerPoint: plan.secondsPerPoint,
  };
  if (plan.fastDecode) p.fastDecode = true;
  if (plan.batchesAhead !== undefined) p.batchesAhead = plan.batchesAhead;
  if (plan.engines) p.engines = plan.engines;
  if (plan.source) p.source = plan.source;
  if (plan.trainWith) p.trainWith = plan.trainWith;
  if (plan.processCacheBytes !== undefined) p.processCacheBytes = plan.processCacheBytes;
  return { ...p, ...changes };
}

function execParams(plan: ExecPlan, changes: ActionParams = {}): ActionParams {
  return {
    command: plan.command,
    file: plan.file,
    ...(plan.throughputRegex ? { throughputRegex: plan.throughputRegex } : {}),
    ...(plan.workers ? { workers: plan.workers } : {}),
    ...(plan.batchSizes ? { batchSizes: plan.batchSizes } : {}),
    ...(plan.secondsPerPoint ? { secondsPerPoint: plan.secondsPerPoint } : {}),
    ...changes,
  };
}

/** Worker counts above `w` up to the cores: w·2, w·4, …, cores. */
function moreWorkerGrid(w: number, cores: number): number[] {
  const out = [w];
  for (let n = w * 2; n < cores; n *= 2) out.push(n);
  if (cores > w) out.push(cores);
  return out;
}

const sameSettings = (a: PointResult, b: PointResult): boolean =>
  a.config.workers === b.config.workers &&
  a.config.batchSize === b.config.batchSize &&
  a.config.order === b.config.order &&
  a.config.osCache === b.config.osCache;

/** A rebuild that makes decoding cheaper, from what the file already stores (null: nothing left to suggest). */
function rebuildAction(ctx: ActionContext, plan: ProfilePlan): AnswerAction | null {
  const images = ctx.dataset?.images;
  const size = Number(plan.decoder.split(':')[1]) || 0;
  if (images && size > 0 && images.maxSide > 2 * size) {
    const max = Math.max(size, Math.round((size * 1.5) / 32) * 32);
    return {
      id: 'rebuild',
      label: `Rebuild with images at most ${max} px on their longest side (they are up to ${images.maxSide} px, cropped to ${size}): less to decode per image.`,
      params: { file: plan.file, maxResolution: max },
    };
  }
  if (!images || images.jpg > 0)
    return {
      id: 'rebuild',
      label: 'Rebuild storing raw pixels (no JPEG to decode; a larger file).',
      params: { file: plan.file, writeMode: 'raw' },
    };
  return null;
}

function exportAction(plan: ProfilePlan, best: PointResult): AnswerAction {
  return {
    id: 'export',
    label: `Export this point as FFCV Loader code: ${f.config({ ...best.config, engine: undefined })}.`,
    params: {
      file: plan.file,
      workers: best.config.workers,
      batchSize: best.config.batchSize,
      order: best.config.order,
      osCache: best.config.osCache,
      decoder: plan.decoder,
      flip: plan.flip,
    },
  };
}

/** Another engine outside the noise of the trained-with one, said as a fact with both numbers. */
function switchActions(ctx: ActionContext, plan: ProfilePlan, trained: EngineName): AnswerAction[] {
  const best = ctx.best!;
  const band = Math.max(ctx.noise ?? 0, 0.05);
  const out: AnswerAction[] = [];
  for (const [e, eb] of Object.entries(ctx.engines ?? {}) as Array<[EngineName, EngineBest]>) {
    if (e === trained || eb.vs_trained_with === null || eb.best_images_per_sec === null || eb.vs_trained_with <= 1 + band) continue;
    const same = ctx.all.find((p) => (p.config.engine ?? 'beton') === e && sameSettings(p, best));
    const fact = same
      ? `${ENGINE_LABELS[trained]}'s best is ${f.ips(best.imagesPerSec)}; ${ENGINE_LABELS[e]} does ${f.ips(same.imagesPerSec)} with the same settings (its best: ${f.ips(eb.best_images_per_sec)}).`
      : `${ENGINE_LABELS[trained]}'s best is ${f.ips(best.imagesPerSec)}; ${ENGINE_LABELS[e]}'s best is ${f.ips(eb.best_images_per_sec)}.`;
    out.push({
      id: 'switch-engine',
      label: fact,
      params: {
        ...sweepParams(plan, { trainWith: e }),
        engine: e,
        images_per_sec: eb.best_images_per_sec,
        vs_trained_with: eb.vs_trained_with,
      },
    });
  }
  return out;
}

/** A loader sweep's actions for its bottleneck (the underlying one under contention, which goes first). */
export function sweepActions(bottleneck: Bottleneck, ctx: ActionContext): AnswerAction[] {
  const plan = ctx.plan as ProfilePlan;
  const best = ctx.best;
  const cores = ctx.machine.cores;
  const out: Array<AnswerAction | null> = [];
  if (ctx.contended)
    out.push({
      id: 'reprofile-idle',
      label: 'Profile again with the machine otherwise idle (stop other jobs): other processes took CPU from the loader.',
      params: sweepParams(plan),
    });
  if (!best) {
    out.push({ id: 'resweep', label: 'Sweep again (no point of this engine was measured).', params: sweepParams(plan) });
    return out.filter((a): a is AnswerAction => a !== null);
  }
  const trained = best.config.engine ?? 'beton';
  const w = best.config.workers;
  const maxMeasured = Math.max(...ctx.points.map((p) => p.config.workers));
  const moreWorkers: AnswerAction | null =
    w < cores && maxMeasured <= w
      ? {
          id: 'resweep',
          label: `Sweep more workers: ${f.count(w, 'worker')} was the most measured, the machine has ${f.count(cores, 'logical core')}.`,
          params: sweepParams(plan, { workers: moreWorkerGrid(w, cores) }),
        }
      : null;
  const ahead = plan.batchesAhead ?? PROFILE_DEFAULTS.batchesAhead;
  const moreAhead: AnswerAction = {
    id: 'resweep',
    label: `Raise batches ahead from ${ahead} to ${ahead * 2}: more reads in flight.`,
    params: sweepParams(plan, { workers: [w], batchSizes: [best.config.batchSize], batchesAhead: ahead * 2 }),
  };
  // Facts measured under the same conditions: kept under contention too (after "profile again idle").
  const switches = switchActions(ctx, plan, trained);
  const bigSwitch = switches.filter((s) => typeof s.params.vs_trained_with === 'number' && s.params.vs_trained_with >= 1.2);
  out.push(...bigSwitch);
  switch (bottleneck) {
    case 'decode':
      out.push(moreWorkers, rebuildAction(ctx, plan));
      if (trained === 'beton' && !plan.fastDecode)
        out.push({
          id: 'resweep',
          label: "Sweep with fast decode (JPEG crops at a reduced DCT scale: faster, not FFCV's pixels).",
          params: sweepParams(plan, { workers: [w], fastDecode: true }),
        });
      break;
    case 'parallelism':
      out.push(moreWorkers ?? moreAhead, moreWorkers ? moreAhead : null);
      break;
    case 'storage':
      if (!best.config.osCache)
        out.push({
          id: 'resweep',
          label: 'Sweep with the OS page cache: the process cache was smaller than what the random order reads.',
          params: sweepParams(plan, { osCache: [true, false], workers: [w], batchSizes: [best.config.batchSize] }),
        });
      if (best.config.order === 'random')
        out.push({
          id: 'resweep',
          label: 'Sweep the quasi_random order: it reads each page once per epoch.',
          params: sweepParams(plan, { orders: ['random', 'quasi_random'], workers: [w], batchSizes: [best.config.batchSize] }),
        });
      out.push(moreAhead);
      break;
    case 'network':
      out.push(moreAhead, {
        id: 'resweep',
        label: 'Sweep the quasi_random order: it fetches each page once per epoch.',
        params: sweepParams(plan, { orders: ['random', 'quasi_random'], workers: [w], batchSizes: [best.config.batchSize] }),
      });
      break;
    case 'balanced':
      out.push(exportAction(plan, best), moreWorkers);
      break;
    default:
      out.push({ id: 'resweep', label: 'Sweep again.', params: sweepParams(plan) });
  }
  out.push(...switches.filter((s) => !bigSwitch.includes(s)));
  if (bottleneck !== 'balanced') out.push(exportAction(plan, best));
  return dedupe(out.filter((a): a is AnswerAction => a !== null));
}

/** A training command's actions (one run or a sweep of it). */
export function execActions(bottleneck: Bottleneck, ctx: ActionContext): AnswerAction[] {
  const plan = ctx.plan as ExecPlan;
  const out: AnswerAction[] = [];
  if (ctx.contended)
    out.push({
      id: 'reprofile-idle',
      label: 'Run the command again with the machine otherwise idle: other processes took CPU from it.',
      params: execParams(plan),
    });
  const best = ctx.best;
  const cores = ctx.machine.cores;
  const placeholders = execPlaceholdersIn(plan.command);
  const sweepWorkers = (ws: number[], why: string): AnswerAction => ({
    id: 'exec-sweep',
    label: placeholders.workers
      ? why
      : `${why} Put {workers} where the command takes its worker count (and {batch_size} for the batch size).`,
    params: execParams(plan, { workers: ws }),
  });
  const profileLoader: AnswerAction = {
    id: 'profile-loader',
    label: 'Profile the loader itself: a sweep of workers, batch size, order and cache says what limits it (decode, storage, parallelism).',
    params: { file: plan.file },
  };
  if (best && ctx.keeps) {
    const filled = fillCommand(plan.command, { workers: best.config.workers, batchSize: best.config.batchSize });
    out.push({
      id: 'run-command',
      label: `Train with ${f.count(best.config.workers, 'worker')}: the fewest that keep the step from waiting for data.`,
      params: { command: filled, workers: best.config.workers, batch_size: best.config.batchSize },
    });
    return out;
  }
  if (best && ctx.points.length > 0) {
    // An exec sweep where no point kept up: more workers if the grid stopped short of the cores, then the loader.
    const w = Math.max(...ctx.points.map((p) => p.config.workers));
    if (w < cores) out.push(sweepWorkers(moreWorkerGrid(w, cores), `Sweep more workers: ${f.count(w, 'worker')} was the most measured.`));
    out.push(profileLoader);
    return out;
  }
  switch (bottleneck) {
    case 'input':
      out.push(
        profileLoader,
        sweepWorkers(moreWorkerGrid(1, Math.max(2, cores)), 'Sweep the command over worker counts: where does the wait stop?'),
      );
      break;
    case 'compute':
    case 'gpu':
    case 'balanced':
      out.push(
        sweepWorkers(
          moreWorkerGrid(1, Math.max(2, cores)),
          'Sweep the command over worker counts: the fewest that keep the wait under 5% leave the most CPU to the step.',
        ),
      );
      break;
    default:
      out.push(profileLoader);
  }
  return out;
}

function dedupe(actions: AnswerAction[]): AnswerAction[] {
  const seen = new Set<string>();
  return actions.filter((a) => {
    const k = `${a.id}:${JSON.stringify(a.params)}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
