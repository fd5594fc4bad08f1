/**
 * The profiler's plan, in one pure module (issue 27, item 5): engine names, defaults, bounds,
 * the sweep's grid in its loop order, point labels and the training-command grid. The sweep
 * (core/profile/sweep/sweep.ts), the CLI, the service's schema and the renderer all read it here, so
 * the renderer's grid cannot drift from the order the sweep measures in: point i of a run is
 * pointsOf(plan)[i]. No imports but types and the contract's constants: the renderer may import
 * its values (the lint allows this module beside core/api/constants.ts).
 */
import { LOADER_DEFAULTS } from './constants.js';
import type { EngineName, ExecPlan, PointConfig, ProfilePlan } from './profile-model.js';

/** The loaders a sweep can run, in the order a sweep runs them (ours first). */
export const ENGINE_NAMES = ['beton', 'ffcv', 'torch'] as const satisfies readonly EngineName[];

export const isEngineName = (s: string): s is EngineName => (ENGINE_NAMES as readonly string[]).includes(s);

/** Words for each engine, for people. */
export const ENGINE_LABELS: Record<EngineName, string> = { beton: 'our loader', ffcv: 'FFCV', torch: 'torch DataLoader' };

/** A plan's defaults (what `beton profile FILE` and an empty Profile form sweep). */
export const PROFILE_DEFAULTS = {
  batchSize: 256,
  /** A training loader's order, as a LoaderConfig's (LOADER_DEFAULTS.order). */
  orders: [LOADER_DEFAULTS.order],
  osCache: [true],
  decoder: 'rrc:160',
  flip: true,
  secondsPerPoint: 3,
  warmupBatches: 2,
  /** The loader's batchesAhead when a plan does not say. */
  batchesAhead: LOADER_DEFAULTS.batchesAhead,
  /** A training-command sweep's seconds per point (null: each command runs to its end). */
  execSecondsPerPoint: null,
} as const;

/** What the service's schema and the forms accept. */
export const PROFILE_BOUNDS = {
  maxWorkerValues: 16,
  maxBatchSize: 4096,
  maxBatchSizeValues: 8,
  maxSecondsPerPoint: 600,
  minBatchesAhead: 1,
  maxBatchesAhead: 64,
  maxEngines: ENGINE_NAMES.length,
} as const;

/** Default worker grid: 1, 2, 4, … below the core count, and the core count. */
export function defaultWorkers(cores: number): number[] {
  const out: number[] = [];
  for (let w = 1; w < cores; w *= 2) out.push(w);
  out.push(Math.max(1, cores));
  return out;
}

/**
 * The sweep's points in index order: engine, then OS cache, order, batch size, workers (the
 * innermost loop). A plan without `engines` (runs before engines) leaves `engine` out.
 */
export function pointsOf(plan: Pick<ProfilePlan, 'workers' | 'batchSizes' | 'orders' | 'osCache' | 'engines'>): PointConfig[] {
  const grid: PointConfig[] = [];
  for (const engine of plan.engines ?? ['beton' as const])
    for (const osCache of plan.osCache)
      for (const order of plan.orders)
        for (const batchSize of plan.batchSizes)
          for (const workers of plan.workers) grid.push({ workers, batchSize, order, osCache, ...(plan.engines ? { engine } : {}) });
  return grid;
}

/** A point's settings as a key: the renderer keys live points by it, not by index. */
export function pointKey(c: PointConfig): string {
  return `${c.engine ?? 'beton'}|${c.workers}|${c.batchSize}|${c.order}|${c.osCache ? 'os' : 'process'}`;
}

/** "ffcv · 4 workers · batch 256 · random · os cache" (the engine only when the point has one). */
export function pointLabel(c: PointConfig): string {
  return [
    ...(c.engine ? [c.engine] : []),
    `${c.workers} worker${c.workers === 1 ? '' : 's'}`,
    `batch ${c.batchSize}`,
    c.order,
    c.osCache ? 'os cache' : 'process cache',
  ].join(' · ');
}

/** The placeholders a training command's grid fills. */
export const EXEC_PLACEHOLDERS = { workers: '{workers}', batchSize: '{batch_size}' } as const;

/** A training-command sweep's grid: workers × batch sizes (absent lists: the one command as written). */
export function execPointsOf(plan: Pick<ExecPlan, 'workers' | 'batchSizes'>): Array<{ workers: number | null; batchSize: number | null }> {
  const ws: Array<number | null> = plan.workers?.length ? plan.workers : [null];
  const bs: Array<number | null> = plan.batchSizes?.length ? plan.batchSizes : [null];
  const out: Array<{ workers: number | null; batchSize: number | null }> = [];
  for (const batchSize of bs) for (const workers of ws) out.push({ workers, batchSize });
  return out;
}

/** Whether a command names a grid placeholder (a grid over a command that names none runs the same command N times). */
export function execPlaceholdersIn(command: string): { workers: boolean; batchSize: boolean } {
  return { workers: command.includes(EXEC_PLACEHOLDERS.workers), batchSize: command.includes(EXEC_PLACEHOLDERS.batchSize) };
}

/**
 * The command for one grid point: `{workers}` and `{batch_size}` replaced by the numbers. The
 * values are positive integers (the schema and the CLI say so), so no shell quoting is needed
 * around them, and the rest of the command is the user's, as they wrote it.
 */
export function fillCommand(command: string, p: { workers: number | null; batchSize: number | null }): string {
  let out = command;
  if (p.workers !== null) out = out.split(EXEC_PLACEHOLDERS.workers).join(String(Math.trunc(p.workers)));
  if (p.batchSize !== null) out = out.split(EXEC_PLACEHOLDERS.batchSize).join(String(Math.trunc(p.batchSize)));
  return out;
}
