import type { EngineName, PointConfig, PointResult } from '../../api/profile-model.js';
import { ENGINE_LABELS, PROFILE_DEFAULTS, pointLabel } from '../../api/profile-plan.js';
import type { PipelineStep } from '../../pipeline/spec.js';
import { ablationStages, pointResultOf, SLICES_PER_POINT, stagePrefixes, torchSettings } from '../engines/engine-points.js';
import { pythonFor, runPythonEngine, type DriverLine, type PythonJob } from '../engines/python-engine.js';
import type { SweepRun } from './sweep-run.js';

/** What the ffcv engine asks the exporter for: one point's loader with the given image pipeline. */
export interface FfcvPointSpec {
  file: string;
  imageField: string;
  config: PointConfig;
  steps: PipelineStep[];
  batchesAhead: number;
}

export interface PythonPointsOptions {
  /** The interpreter (default: $BETON_PYTHON, else python3 on PATH). */
  python?: string | null | undefined;
  /** The FFCV Loader for a point as Python code defining `loader` (the exporter's). Needed by the ffcv engine. */
  ffcvCode?: ((point: FfcvPointSpec) => string) | undefined;
  /** The engine skipped a point, for people. */
  onNote?: ((message: string) => void) | undefined;
}

/** A FFCV stage's rate without it (one ablation line). */
type Ablation = { stage: string; imagesPerSec: number };

/**
 * One Python engine over its grid points: one child process (engines/python-engine.ts), each
 * point reported as its result line comes. With `stages`, FFCV's points wait for their
 * ablations (one run per stage prefix) so their stage costs are stored with them; what is
 * still held when the engine ends goes out without them.
 */
export async function measurePythonPoints(run: SweepRun, engine: Exclude<EngineName, 'beton'>, o: PythonPointsOptions): Promise<void> {
  const { plan, grid, steps, telemetry, meter } = run;
  const cells = [...grid.entries()].filter(([, c]) => c.engine === engine);
  const prefixes = engine === 'ffcv' && plan.stages ? stagePrefixes(steps) : [];
  const job = pythonJob(run, engine, cells, prefixes, o);
  const ablations = new Map<number, Ablation[]>();
  const held = new Map<number, PointResult>();
  const release = (index: number): void => {
    const point = held.get(index);
    if (!point) return;
    held.delete(index);
    const ab = ablations.get(index);
    if (prefixes.length && ab?.length === prefixes.length)
      point.stages = ablationStages(ab, steps, point.imagesPerSec, Math.min(point.config.workers, run.cores));
    run.report(point);
  };
  let sampleFrom = 0;
  // Results are assembled in line order (each awaits the page-cache residency): one chain.
  let pending = Promise.resolve();
  const label = ENGINE_LABELS[engine];
  run.wait(
    `starting ${label} in ${pythonFor(o.python)} — ${engine === 'ffcv' ? 'imports, then numba compiles each pipeline, about 30 s' : 'imports torch, about 10 s'}`,
  );
  const ordinal = (index: number): number => cells.findIndex(([i]) => i === index) + 1;
  const onLine = (l: DriverLine): void => {
    if (l.kind === 'ablating') {
      run.wait(`timing ${label}'s stages by ablation (point ${ordinal(l.index)} of ${cells.length}), ${l.k} of ${l.of}: ${l.stage}`);
    } else if (l.kind === 'start') {
      run.wait(`measuring point ${run.points.length + held.size + 1} of ${grid.length}: ${pointLabel(grid[l.index]!)}`);
      sampleFrom = telemetry.samples().length;
      telemetry.setThroughput(null, l.index);
      meter.start();
    } else if (l.kind === 'progress') {
      meter.setCount(l.images);
      // The engine's wait for this batch: the live "wait per step" line for every engine, not ours alone.
      if (l.waitMs !== undefined) meter.waitedFor(l.waitMs);
    } else if (l.kind === 'point') {
      meter.stop();
      telemetry.setThroughput(null, null);
      const mine = telemetry.samples().slice(sampleFrom);
      const cfg = grid[l.index]!;
      pending = pending.then(async () => {
        const point = pointResultOf({
          index: l.index,
          config: cfg,
          images: l.images,
          seconds: l.seconds,
          batches: l.batches,
          waits: l.waits,
          slices: l.slices,
          samples: mine,
          workerBusyMsPerBatch: null,
          pageCacheResident: await telemetry.pageCacheResidency(),
        });
        held.set(l.index, point);
        if (!prefixes.length) release(l.index);
      });
    } else if (l.kind === 'ablation') {
      const list = ablations.get(l.index) ?? [];
      list.push({ stage: l.stage, imagesPerSec: l.imagesPerSec });
      ablations.set(l.index, list);
      if (list.length === prefixes.length) pending = pending.then(() => release(l.index));
    }
  };
  await runPythonEngine({
    python: o.python,
    job,
    signal: run.signal,
    onSkipped: (m) => o.onNote?.(`the ${engine} engine ${m}`),
    onLine,
  }).finally(async () => {
    await pending;
    for (const index of [...held.keys()]) release(index);
  });
}

/** The job the driver runs: the engine's points, FFCV's as exported code (and its ablations), torch's as settings. */
function pythonJob(
  run: SweepRun,
  engine: Exclude<EngineName, 'beton'>,
  cells: ReadonlyArray<[number, PointConfig]>,
  prefixes: ReadonlyArray<{ stage: string; steps: PipelineStep[] }>,
  o: PythonPointsOptions,
): PythonJob {
  const { plan, steps } = run;
  // The loader's default when the plan says nothing (core/loader/loader.ts), so both engines read as far ahead as ours.
  const batchesAhead = plan.batchesAhead ?? PROFILE_DEFAULTS.batchesAhead;
  const code = (config: PointConfig, s: PipelineStep[]): string =>
    o.ffcvCode!({ file: plan.file, imageField: run.imageField!, config, steps: s, batchesAhead });
  return {
    engine,
    warmupBatches: Math.max(1, plan.warmupBatches),
    seconds: plan.secondsPerPoint,
    slices: SLICES_PER_POINT,
    stageSeconds: Math.max(1, plan.secondsPerPoint / 2),
    points: cells.map(([index, config]) =>
      engine === 'ffcv'
        ? { index, code: code(config, steps), ablations: prefixes.map((p) => ({ stage: p.stage, code: code(config, p.steps) })) }
        : { index, torch: torchSettings(plan, config, batchesAhead) },
    ),
  };
}
