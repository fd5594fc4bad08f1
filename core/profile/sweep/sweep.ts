import { RGB_IMAGE_IDENTITY } from '../../fields/rgb-image-field.js';
import { resolve } from 'node:path';
import type {
  DatasetInfo,
  EngineFailure,
  EngineName,
  PointResult,
  ProfilePlan,
  ProfileRun,
  RunStart,
  TelemetrySample,
} from '../../api/profile-model.js';
import { pointsOf } from '../../api/profile-plan.js';
import { BetonError } from '../../format/errors.js';
import { RandomHorizontalFlip, ToCHW, type PipelineStep } from '../../pipeline/spec.js';
import { Reader } from '../../reader/reader.js';
import { isRemoteUrl } from '../../remote/url.js';
import { fitBatchSize, parseDecoder } from '../engines/bench-loader.js';
import { machineInfo } from '../sampling/machine.js';
import { startTelemetry } from '../sampling/telemetry.js';
import { answerOf } from '../verdict/answer.js';
import { diagnose } from '../verdict/verdict.js';
import { measureBetonPoints } from './beton-points.js';
import { checkEngines } from './check-engines.js';
import { datasetInfoOf } from './dataset-info.js';
import { PointMeter } from './point-meter.js';
import { measurePythonPoints, type FfcvPointSpec } from './python-points.js';
import { completePlan } from './sweep-plan.js';
import type { SweepRun } from './sweep-run.js';

export interface SweepOptions {
  signal?: AbortSignal;
  /** Every ~250 ms while it runs (live charts). */
  onSample?: (s: TelemetrySample) => void;
  onPoint?: (p: PointResult, done: number, total: number) => void;
  /**
   * What the sweep is doing or waiting for, in words, as it changes ("measuring point 3 of 6:
   * …", "starting FFCV in /usr/bin/python3 — imports and numba compiles, about 30 s", "timing
   * FFCV's stages by ablation, 1 of 2"), with the points done so far.
   */
  onWait?: (message: string, done: number, total: number) => void;
  /** An engine failed (one line; its traceback in `detail`); the sweep goes on with the others. */
  onEngineFailed?: (failure: EngineFailure) => void;
  /** Sample GPUs with nvidia-smi (default true; "no GPU" is reported once and ignored). */
  gpu?: boolean;
  /** A default changed to fit the file (a batch larger than the dataset), for people. */
  onNote?: (message: string) => void;
  /** Once the plan, machine and dataset are known, before the first point: the run can be recorded as started. */
  onStart?: (run: RunStart) => void;
  /** The Python interpreter of the ffcv and torch engines (default: $BETON_PYTHON, else python3 on PATH). */
  python?: string | null;
  /**
   * The FFCV Loader for a point as Python code defining `loader` (the exporter's, supplied by
   * the app layer: the profiler sits below core/export). Needed by the ffcv engine.
   */
  ffcvCode?: (point: FfcvPointSpec) => string;
}

/**
 * Runs the loader over a grid (workers × batch sizes × orders × cache), each point for a
 * bounded time after a warm-up, sampling CPU, memory, disk and GPU every ~250 ms, and
 * diagnoses the bottleneck. Cancel with `signal`: the run ends with status 'cancelled'.
 */
export async function profile(planInput: Partial<ProfilePlan> & { file: string }, opts: SweepOptions = {}): Promise<ProfileRun> {
  const startedAt = new Date().toISOString();
  const file = isRemoteUrl(planInput.file) ? planInput.file : resolve(planInput.file);
  const [machine, { dataset, imageField }] = await Promise.all([machineInfo(), readDataset(file)]);
  // Checked before any point runs: batch sizes must fit the file (the default is capped at
  // its size), and the decoder must parse, so a sweep never ends in an error after minutes.
  const batchSizes = planInput.batchSizes?.length
    ? planInput.batchSizes.map((b) => fitBatchSize(file, dataset.numSamples, b, '--batch-sizes'))
    : [fitBatchSize(file, dataset.numSamples, undefined, '--batch-sizes', opts.onNote)];
  const plan = completePlan({ ...planInput, batchSizes });
  opts.onStart?.({ kind: 'sweep', startedAt, plan, machine, dataset });
  const steps: PipelineStep[] = [parseDecoder(plan.decoder), ...(plan.flip ? [RandomHorizontalFlip()] : []), ToCHW()];
  const engines: EngineName[] = plan.engines ?? ['beton'];
  await checkEngines(plan, opts.python);
  if (engines.includes('ffcv') && (!opts.ffcvCode || !imageField))
    throw new BetonError('ENGINE_UNAVAILABLE', `the ffcv engine needs an image field in ${plan.file} and the exporter`);
  // The grid in index order, as the plan module spells it (the renderer reads the same function).
  const grid = pointsOf(plan);
  const points: PointResult[] = [];
  const meter = new PointMeter();
  const telemetry = await startTelemetry({
    // Our process tree: the loader's threads and the Python engines' processes, so the
    // loader's CPU can be told from the machine's (the rest is other processes).
    pid: process.pid,
    gpu: opts.gpu ?? true,
    file: plan.file,
    onSample: opts.onSample,
    throughput: (windowMs) => meter.throughput(windowMs),
    waitPerStep: () => meter.waitPerStep(),
  });
  const run: SweepRun = {
    plan,
    grid,
    steps,
    imageField,
    numSamples: dataset.numSamples,
    cores: machine.cores,
    telemetry,
    meter,
    signal: opts.signal,
    points,
    report: (point) => {
      points.push(point);
      opts.onPoint?.(point, points.length, grid.length);
    },
    wait: (message) => opts.onWait?.(message, points.length, grid.length),
  };
  let status: ProfileRun['status'] = 'ok';
  let samples: TelemetrySample[] = [];
  const engineFailures: EngineFailure[] = [];
  try {
    status = await measureBetonPoints(run);
    for (const engine of engines) {
      if (engine === 'beton' || opts.signal?.aborted) continue;
      try {
        await measurePythonPoints(run, engine, { python: opts.python, ffcvCode: opts.ffcvCode, onNote: opts.onNote });
      } catch (e) {
        // One engine's failure is one line; the others' points and the answer are kept.
        if (opts.signal?.aborted) break;
        const failure = engineFailureOf(engine, e, points);
        engineFailures.push(failure);
        opts.onEngineFailed?.(failure);
      }
    }
    if (opts.signal?.aborted) status = 'cancelled';
  } finally {
    // Also on failure: no sampler (or nvidia-smi child) outlives the run.
    samples = await telemetry.stop();
  }
  const done: ProfileRun = {
    kind: 'sweep',
    startedAt,
    finishedAt: new Date().toISOString(),
    status,
    plan,
    machine,
    dataset,
    points,
    samples,
    verdict: points.length
      ? diagnose(points, samples, machine, { dataset, ...(plan.batchesAhead !== undefined ? { batchesAhead: plan.batchesAhead } : {}) })
      : null,
    ...(engineFailures.length ? { engineFailures } : {}),
  };
  return { ...done, answer: answerOf(done) };
}

/**
 * The one open of the file before the points (each point's Loader opens its own): what the
 * run records of the dataset, and the image field the pipeline decodes.
 */
async function readDataset(file: string): Promise<{ dataset: DatasetInfo; imageField: string | undefined }> {
  const reader = await Reader.open(file);
  try {
    return { dataset: datasetInfoOf(reader), imageField: reader.fields.find((f) => f.field.type === RGB_IMAGE_IDENTITY.type)?.name };
  } finally {
    reader.close();
  }
}

/** An engine's error as the run keeps it: its first line, the rest as detail, and what it had measured. */
function engineFailureOf(engine: EngineName, e: unknown, points: readonly PointResult[]): EngineFailure {
  const text = e instanceof Error ? e.message : String(e);
  const [message, ...rest] = text.split('\n');
  return {
    engine,
    message: message!.trim(),
    detail: rest.map((l) => l.trim()).join('\n'),
    measured: points.filter((p) => p.config.engine === engine).length,
  };
}
