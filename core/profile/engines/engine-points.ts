import { statSync } from 'node:fs';
import { BetonError } from '../../format/errors.js';
import type { PipelineStep } from '../../pipeline/spec.js';
import type { PointConfig, PointResult, ProfilePlan, StageCosts, TelemetrySample } from '../../api/profile-model.js';

/**
 * The pieces of a grid point shared by every engine: one PointResult shape whether our loader
 * or a Python child measured it, its slices, and the stage costs of the FFCV ablation. Pure
 * except sourceFolderCheck.
 */

export const pct = (xs: readonly number[], q: number): number => {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * (s.length - 1) + 0.5))]!;
};

const mean = (xs: readonly number[]): number | null => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

/** img/s in each of `k` equal slices of `seconds`, from batch arrivals `[ms since start, images]`. */
export function sliceRates(arrivals: ReadonlyArray<readonly [number, number]>, seconds: number, k: number): number[] {
  const width = Math.max(1e-9, (seconds * 1000) / k);
  const counts = new Array<number>(k).fill(0);
  for (const [t, n] of arrivals) counts[Math.min(k - 1, Math.max(0, Math.floor(t / width)))]! += n;
  return counts.map((c) => (c / width) * 1000);
}

/** (max − min) / median of a point's slices: how much its rate moved while it was measured (null under two slices). */
export function spreadOf(slices: readonly number[] | undefined): number | null {
  if (!slices || slices.length < 2) return null;
  const med = pct(slices, 0.5);
  return med > 0 ? (Math.max(...slices) - Math.min(...slices)) / med : null;
}

export interface PointInput {
  index: number;
  config: PointConfig;
  images: number;
  seconds: number;
  batches: number;
  /** The consumer's wait for each batch (ms). */
  waits: readonly number[];
  slices: number[];
  /** The telemetry samples taken while the point was measured. */
  samples: readonly TelemetrySample[];
  /** Our loader's worker busy time per batch; null for engines that do not report it (0 is stored, the verdict ignores it). */
  workerBusyMsPerBatch: number | null;
  pageCacheResident: number | null;
}

/** A measured point, with the CPU of the loader's process tree and of the machine over its samples. */
export function pointResultOf(x: PointInput): PointResult {
  const cores = x.samples[0]?.cpuPerCore.length ?? 0;
  const cpuPerCore = Array.from(
    { length: cores },
    (_, c) => x.samples.reduce((s, v) => s + (v.cpuPerCore[c] ?? 0), 0) / Math.max(1, x.samples.length),
  );
  const gpuVals = x.samples.flatMap((s) => s.gpus.map((g) => g.utilPercent));
  const machine = mean(x.samples.filter((s) => s.cpuPerCore.length).map((s) => mean(s.cpuPerCore)!));
  const loader = mean(x.samples.map((s) => s.processCpu).filter((v): v is number => typeof v === 'number'));
  const seconds = Math.max(1e-6, x.seconds);
  return {
    index: x.index,
    config: x.config,
    images: x.images,
    seconds,
    imagesPerSec: x.images / seconds,
    batchesPerSec: x.batches / seconds,
    waitP50Ms: pct(x.waits, 0.5),
    waitP95Ms: pct(x.waits, 0.95),
    workerBusyMsPerBatch: x.workerBusyMsPerBatch ?? 0,
    cpuPerCore,
    rssPeakBytes: x.samples.reduce((m, s) => Math.max(m, s.rssBytes), 0),
    diskReadBytes: x.samples.reduce((s, v) => s + v.diskReadBytes, 0),
    pageCacheResident: x.pageCacheResident,
    gpuUtilMean: gpuVals.length ? gpuVals.reduce((a, b) => a + b, 0) / gpuVals.length : null,
    slices: x.slices,
    loaderCpu: loader,
    machineCpu: machine,
  };
}

/** A step's name as a stage of the stacked bar. */
export function stageName(s: PipelineStep): string {
  if ('decoder' in s) return 'read+decode';
  return s.op === 'to_chw' ? 'to CHW' : s.op === 'random_horizontal_flip' ? 'flip' : s.op;
}

/** The pipeline prefixes the FFCV ablation runs: decoder only, + the next step, … (the whole pipeline is the point itself). */
export function stagePrefixes(steps: readonly PipelineStep[]): Array<{ stage: string; steps: PipelineStep[] }> {
  return steps.slice(0, -1).map((s, i) => ({ stage: stageName(s), steps: steps.slice(0, i + 1) }));
}

/**
 * Stage costs from the ablation: each prefix's time per image, the whole pipeline's being the
 * point's own; a stage costs the difference to the prefix before it, times the workers running
 * in parallel (wall time per image × parallel workers ≈ worker time per image). A negative
 * difference is timing noise: 0.
 */
export function ablationStages(
  prefixes: ReadonlyArray<{ stage: string; imagesPerSec: number }>,
  steps: readonly PipelineStep[],
  fullImagesPerSec: number,
  parallel: number,
): StageCosts {
  const times = [...prefixes.map((p) => p.imagesPerSec), fullImagesPerSec].map((ips) => (ips > 0 ? 1000 / ips : 0));
  const names = [...prefixes.map((p) => p.stage), stageName(steps[steps.length - 1]!)];
  return {
    method: 'ablation',
    stages: names.map((stage, i) => ({ stage, msPerImage: Math.max(0, times[i]! - (i > 0 ? times[i - 1]! : 0)) * Math.max(1, parallel) })),
  };
}

/** The torch engine's DataLoader settings for a point: the transforms equivalent to our decoder and flip. */
export function torchSettings(plan: ProfilePlan, c: PointConfig, batchesAhead: number): Record<string, unknown> {
  const [kind, size] = plan.decoder.split(':');
  return {
    source: plan.source,
    workers: c.workers,
    batchSize: c.batchSize,
    shuffle: c.order !== 'sequential',
    decoder: { kind, size: Number(size), ratio: 224 / 256 },
    flip: plan.flip,
    batchesAhead,
  };
}

/** The torch engine reads a source folder and needs a crop (images of different sizes do not batch). */
export function sourceFolderCheck(source: string | undefined, decoder: string): void {
  if (!source)
    throw new BetonError('BAD_OPTIONS', 'the torch engine reads the source folder the .beton was built from: pass --source DIR', {
      hint: 'An ImageFolder layout: one folder per class holding its images.',
    });
  let dir = false;
  try {
    dir = statSync(source).isDirectory();
  } catch {
    dir = false;
  }
  if (!dir)
    throw new BetonError(
      'BAD_OPTIONS',
      `--source ${source} is not a folder: the torch engine reads an image folder (one folder per class)`,
    );
  if (decoder === 'simple')
    throw new BetonError(
      'BAD_OPTIONS',
      'the torch engine needs a crop decoder (rrc:SIZE or center:SIZE): full-size images of different sizes do not batch',
      {
        hint: 'Pass --decoder rrc:160 (the default).',
      },
    );
}

/** Op names as people read them; a fused stage (several ops in one pixel pass) lists its ops. */
const OP_LABEL: Record<string, string> = { random_horizontal_flip: 'flip', to_chw: 'to CHW' };
export function stageLabel(name: string): string {
  const m = /^fused\((.*)\)$/.exec(name);
  if (m)
    return `${m[1]!
      .split('+')
      .map((o) => OP_LABEL[o] ?? o)
      .join(' + ')} (fused)`;
  return OP_LABEL[name] ?? name;
}

/**
 * Stage costs from our workers' timers between two Loader.stats(): each stage's worker time
 * per image; what busy time the timers did not cover (copies of plain fields such as labels,
 * claiming rows) is "copy".
 */
export function timerStages(
  before: { workerBusyMs: number; stageMs?: Record<string, number> },
  after: { workerBusyMs: number; stageMs?: Record<string, number> },
  images: number,
): StageCosts | null {
  if (!(images > 0) || !after.stageMs) return null;
  const stages: StageCosts['stages'] = [];
  let covered = 0;
  for (const [k, v] of Object.entries(after.stageMs)) {
    const d = Math.max(0, v - (before.stageMs?.[k] ?? 0));
    covered += d;
    stages.push({ stage: stageLabel(k), msPerImage: d / images });
  }
  stages.push({ stage: 'copy', msPerImage: Math.max(0, after.workerBusyMs - before.workerBusyMs - covered) / images });
  return { method: 'timers', stages };
}
