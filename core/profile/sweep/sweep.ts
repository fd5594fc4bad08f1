import { RGB_IMAGE_IDENTITY } from '../../fields/rgb-image-field.js';
import { createHash } from 'node:crypto';
import { openSync, readSync, closeSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { FIELD_DESCRIPTOR_SIZE, HEADER_SIZE } from '../../format/constants.js';
import { Loader } from '../../loader/loader.js';
import { RandomHorizontalFlip, ToCHW, type PipelineStep } from '../../pipeline/spec.js';
import { Reader } from '../../reader/reader.js';
import { isRemoteUrl } from '../../remote/url.js';
import { BetonError } from '../../format/errors.js';
import { fitBatchSize, loaderMemoryError, parseDecoder } from '../engines/bench-loader.js';
import { datasetContentSha256 } from '../../reader/content-hash.js';
import { machineInfo } from '../sampling/machine.js';
import { startTelemetry } from '../sampling/telemetry.js';
import type { DatasetInfo, PointConfig, PointResult, ProfilePlan, ProfileRun, RunStart, TelemetrySample } from '../../api/profile-model.js';
import { diagnose } from '../verdict/verdict.js';
import { engineAvailability, runPythonEngine, type PythonJob } from '../engines/python-engine.js';
import {
  ablationStages,
  pointResultOf,
  timerStages,
  sliceRates,
  sourceFolderCheck,
  stagePrefixes,
  torchSettings,
} from '../engines/engine-points.js';
import type { EngineFailure, EngineName } from '../../api/profile-model.js';
import { ENGINE_LABELS, PROFILE_DEFAULTS, defaultWorkers as workersFor, pointLabel, pointsOf } from '../../api/profile-plan.js';
import { answerOf } from '../verdict/answer.js';
import { pythonFor } from '../engines/python-engine.js';

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

/** What the ffcv engine asks the exporter for: one point's loader with the given image pipeline. */
export interface FfcvPointSpec {
  file: string;
  imageField: string;
  config: PointConfig;
  steps: PipelineStep[];
  batchesAhead: number;
}

/** Slices each point's measured time is cut into (its spread is over these). */
export const SLICES_PER_POINT = 3;
/** The loader's default batchesAhead (core/loader/loader.ts): what a Python engine is given when the plan says nothing. */
const DEFAULT_BATCHES_AHEAD = PROFILE_DEFAULTS.batchesAhead;

/** Default worker grid: 1, 2, 4, … up to the core count, and the core count (core/api/profile-plan.ts). */
export function defaultWorkers(cores = availableParallelism()): number[] {
  return workersFor(cores);
}

export function completePlan(p: Partial<ProfilePlan> & { file: string }): ProfilePlan {
  return {
    file: isRemoteUrl(p.file) ? p.file : resolve(p.file),
    workers: p.workers?.length ? p.workers : defaultWorkers(),
    batchSizes: p.batchSizes?.length ? p.batchSizes : [PROFILE_DEFAULTS.batchSize],
    orders: p.orders?.length ? p.orders : [...PROFILE_DEFAULTS.orders],
    osCache: p.osCache?.length ? p.osCache : [...PROFILE_DEFAULTS.osCache],
    decoder: p.decoder ?? PROFILE_DEFAULTS.decoder,
    flip: p.flip ?? PROFILE_DEFAULTS.flip,
    // Only when asked: plans stored before the option keep their shape.
    ...(p.fastDecode ? { fastDecode: true } : {}),
    ...(p.batchesAhead !== undefined ? { batchesAhead: p.batchesAhead } : {}),
    secondsPerPoint: p.secondsPerPoint ?? PROFILE_DEFAULTS.secondsPerPoint,
    warmupBatches: p.warmupBatches ?? PROFILE_DEFAULTS.warmupBatches,
    // Only when asked, as above.
    ...(p.engines?.length ? { engines: [...new Set(p.engines)] } : {}),
    ...(p.source ? { source: resolve(p.source) } : {}),
    ...(p.stages ? { stages: true } : {}),
    ...(p.trainWith ? { trainWith: p.trainWith } : {}),
    ...(p.processCacheBytes !== undefined ? { processCacheBytes: p.processCacheBytes } : {}),
  };
}

export function datasetInfo(file: string): DatasetInfo {
  const reader = Reader.openSync(file);
  try {
    const fd = openSync(file, 'r');
    const head = Buffer.alloc(HEADER_SIZE + FIELD_DESCRIPTOR_SIZE * reader.fields.length);
    readSync(fd, head, 0, head.length, 0);
    closeSync(fd);
    return {
      path: resolve(file),
      sizeBytes: statSync(file).size,
      headerSha256: createHash('sha256').update(head).digest('hex'),
      contentSha256: datasetContentSha256(file),
      numSamples: reader.numSamples,
      schema: reader.fields.map(({ name, field }) => ({ name, type: field.type, typeId: field.typeId })),
      ...storedImages(reader),
    };
  } finally {
    reader.close();
  }
}

/** datasetInfo for an s3:// or https:// file: from what the Reader's open fetched (no data pages). */
export async function remoteDatasetInfo(url: string): Promise<DatasetInfo> {
  const reader = await Reader.open(url);
  try {
    const T = reader.header.allocTablePtr;
    const head = reader.readRaw(0, HEADER_SIZE + FIELD_DESCRIPTOR_SIZE * reader.fields.length);
    const content = createHash('sha256')
      .update(head)
      .update(reader.readRaw(T, reader.fileSize - T));
    return {
      path: url,
      sizeBytes: reader.fileSize,
      headerSha256: createHash('sha256').update(head).digest('hex'),
      contentSha256: content.digest('hex'),
      numSamples: reader.numSamples,
      schema: reader.fields.map(({ name, field }) => ({ name, type: field.type, typeId: field.typeId })),
    };
  } finally {
    reader.close();
  }
}

/** How the image fields store their samples (the fields say: imageMode, imageSize), summed over them. */
function storedImages(reader: Reader): { images?: { raw: number; jpg: number; maxSide: number } } {
  const fields = reader.fields.flatMap(({ field }, f) => (field.imageMode && field.imageSize ? [{ field, f }] : []));
  if (fields.length === 0) return {};
  const images = { raw: 0, jpg: 0, maxSide: 0 };
  for (let i = 0; i < reader.numSamples; i++) {
    for (const { field, f } of fields) {
      const m = reader.fieldMetadata(i, f);
      images[field.imageMode!(m)]++;
      const { width, height } = field.imageSize!(m);
      images.maxSide = Math.max(images.maxSide, width, height);
    }
  }
  return { images };
}

/**
 * The dataset a training command reads, when it names a .beton we can open; null otherwise
 * (any file may be named: a command run is recorded either way, just without a dataset).
 */
export function tryDatasetInfo(file: string): DatasetInfo | null {
  try {
    return datasetInfo(file);
  } catch {
    return null;
  }
}

/**
 * Every engine of a plan can run here (Python engines import; the torch engine has its source
 * folder and a crop decoder), else a BetonError with one line on how to get it. The CLI and
 * the service call it before a sweep starts, so a missing FFCV is one line now, not an error
 * after minutes of sweeping the other engines (and no failed run in the database).
 */
export async function checkEngines(
  plan: Pick<ProfilePlan, 'engines' | 'source'> & { decoder?: string; file?: string },
  python?: string | null,
): Promise<void> {
  // FFCV and the torch baseline open a local path (FFCV memory-maps it): a URL is named
  // as such, before any interpreter is looked for (no Python traceback, no --python hint).
  const local = (plan.engines ?? []).filter((e) => e !== 'beton');
  if (plan.file !== undefined && isRemoteUrl(plan.file) && local.length)
    throw new BetonError(
      'ENGINE_UNAVAILABLE',
      `${plan.file}: the ${local.join(' and ')} engine${local.length > 1 ? 's read' : ' reads'} local files only (FFCV memory-maps its file); profile a URL with --engine beton, or copy it first: beton cp ${plan.file} FILE`,
    );
  for (const e of plan.engines ?? []) {
    const a = await engineAvailability(e, python);
    if (!a.available) throw new BetonError('ENGINE_UNAVAILABLE', a.reason ?? `the ${e} engine is not available here`);
  }
  if (plan.engines?.includes('torch')) sourceFolderCheck(plan.source, plan.decoder ?? 'rrc:160');
}

/**
 * Runs the loader over a grid (workers × batch sizes × orders × cache), each point for a
 * bounded time after a warm-up, sampling CPU, memory, disk and GPU every ~250 ms, and
 * diagnoses the bottleneck. Cancel with `signal`: the run ends with status 'cancelled'.
 */
export async function profile(planInput: Partial<ProfilePlan> & { file: string }, opts: SweepOptions = {}): Promise<ProfileRun> {
  const startedAt = new Date().toISOString();
  const file = isRemoteUrl(planInput.file) ? planInput.file : resolve(planInput.file);
  const [machine, dataset] = await Promise.all([
    machineInfo(),
    isRemoteUrl(file) ? remoteDatasetInfo(file) : Promise.resolve(datasetInfo(file)),
  ]);
  // Checked before any point runs: batch sizes must fit the file (the default is capped at
  // its size), and the decoder must parse, so a sweep never ends in an error after minutes.
  const batchSizes = planInput.batchSizes?.length
    ? planInput.batchSizes.map((b) => fitBatchSize(file, dataset.numSamples, b, '--batch-sizes'))
    : [fitBatchSize(file, dataset.numSamples, undefined, '--batch-sizes', opts.onNote)];
  const plan = completePlan({ ...planInput, batchSizes });
  opts.onStart?.({ kind: 'sweep', startedAt, plan, machine, dataset });
  const r = await Reader.open(plan.file);
  const imageField = r.fields.find((f) => f.field.type === RGB_IMAGE_IDENTITY.type)?.name;
  r.close();
  const steps: PipelineStep[] = [parseDecoder(plan.decoder), ...(plan.flip ? [RandomHorizontalFlip()] : []), ToCHW()];
  const engines: EngineName[] = plan.engines ?? ['beton'];
  const points: PointResult[] = [];
  await checkEngines(plan, opts.python);
  if (engines.includes('ffcv') && (!opts.ffcvCode || !imageField))
    throw new BetonError('ENGINE_UNAVAILABLE', `the ffcv engine needs an image field in ${plan.file} and the exporter`);
  // The grid in index order, as the plan module spells it (the renderer reads the same function).
  const grid: PointConfig[] = pointsOf(plan);
  const wait = (message: string): void => opts.onWait?.(message, points.length, grid.length);
  const engineFailures: EngineFailure[] = [];

  // Throughput for the telemetry: images counted by the point loop, read every sample.
  let counted = 0;
  let lastCount = 0;
  let measuring = false;
  // The consumer's wait per batch, summed between telemetry samples.
  let waited = 0;
  let waitedSteps = 0;
  const telemetry = await startTelemetry({
    // Our process tree: the loader's threads and the Python engines' processes, so the
    // loader's CPU can be told from the machine's (the rest is other processes).
    pid: process.pid,
    gpu: opts.gpu ?? true,
    file: plan.file,
    onSample: opts.onSample,
    throughput: (windowMs) => {
      if (!measuring) return null;
      const n = counted - lastCount;
      lastCount = counted;
      return (n / windowMs) * 1000;
    },
    waitPerStep: () => {
      const w = measuring && waitedSteps > 0 ? waited / waitedSteps : null;
      waited = waitedSteps = 0;
      return w;
    },
  });
  let samples: TelemetrySample[] = [];
  const batchesAhead = plan.batchesAhead ?? DEFAULT_BATCHES_AHEAD;

  /** One Python engine over its grid cells: one child process, points reported as they come. */
  const runEngine = async (engine: Exclude<EngineName, 'beton'>): Promise<void> => {
    const cells = [...grid.entries()].filter(([, c]) => c.engine === engine);
    const prefixes = engine === 'ffcv' && plan.stages ? stagePrefixes(steps) : [];
    const code = (config: PointConfig, s: PipelineStep[]): string =>
      opts.ffcvCode!({ file: plan.file, imageField: imageField!, config, steps: s, batchesAhead });
    const job: PythonJob = {
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
    const ablations = new Map<number, Array<{ stage: string; imagesPerSec: number }>>();
    // A point waits for its ablation (FFCV's stages) before it is reported and recorded, so its
    // stages are stored with it; what is still held when the engine ends goes out without them.
    const held = new Map<number, PointResult>();
    const release = (index: number): void => {
      const point = held.get(index);
      if (!point) return;
      held.delete(index);
      const ab = ablations.get(index);
      if (prefixes.length && ab?.length === prefixes.length)
        point.stages = ablationStages(ab, steps, point.imagesPerSec, Math.min(point.config.workers, machine.cores));
      points.push(point);
      opts.onPoint?.(point, points.length, grid.length);
    };
    let sampleFrom = 0;
    let pending = Promise.resolve();
    const label = ENGINE_LABELS[engine];
    wait(
      `starting ${label} in ${pythonFor(opts.python)} — ${engine === 'ffcv' ? 'imports, then numba compiles each pipeline, about 30 s' : 'imports torch, about 10 s'}`,
    );
    const ordinal = (index: number): number => cells.findIndex(([i]) => i === index) + 1;
    await runPythonEngine({
      python: opts.python,
      job,
      signal: opts.signal,
      onSkipped: (m) => opts.onNote?.(`the ${engine} engine ${m}`),
      onLine: (l) => {
        if (l.kind === 'ablating') {
          wait(`timing ${label}'s stages by ablation (point ${ordinal(l.index)} of ${cells.length}), ${l.k} of ${l.of}: ${l.stage}`);
        } else if (l.kind === 'start') {
          wait(`measuring point ${points.length + held.size + 1} of ${grid.length}: ${pointLabel(grid[l.index]!)}`);
          sampleFrom = telemetry.samples().length;
          telemetry.setThroughput(null, l.index);
          lastCount = counted = 0;
          waited = waitedSteps = 0;
          measuring = true;
        } else if (l.kind === 'progress') {
          counted = l.images;
          // The engine's wait for this batch: the live "wait per step" line for every engine, not ours alone.
          if (l.waitMs !== undefined) {
            waited += l.waitMs;
            waitedSteps++;
          }
        } else if (l.kind === 'point') {
          measuring = false;
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
      },
    }).finally(async () => {
      await pending;
      for (const index of [...held.keys()]) release(index);
    });
  };
  let status: ProfileRun['status'] = 'ok';
  try {
    for (const [index, cfg] of grid.entries()) {
      if ((cfg.engine ?? 'beton') !== 'beton') continue;
      if (opts.signal?.aborted) {
        status = 'cancelled';
        break;
      }
      wait(`measuring point ${points.length + 1} of ${grid.length}: ${pointLabel(cfg)}`);
      const loader = await Loader.open(plan.file, {
        batchSize: cfg.batchSize,
        numWorkers: cfg.workers,
        order: cfg.order,
        osCache: cfg.osCache,
        ...(plan.processCacheBytes !== undefined
          ? { processCacheBytes: plan.processCacheBytes, remote: { poolBytes: plan.processCacheBytes } }
          : {}),
        fastDecode: plan.fastDecode ?? false,
        ...(plan.batchesAhead !== undefined ? { batchesAhead: plan.batchesAhead } : {}),
        seed: 0,
        dropLast: true,
        ...(imageField ? { pipelines: { [imageField]: steps } } : {}),
      }).catch((e: unknown) => {
        throw loaderMemoryError(e, cfg.batchSize, plan.decoder);
      });
      try {
        // fitBatchSize ruled this out; kept so a sweep can never measure nothing silently.
        if (loader.length === 0)
          throw new BetonError('TOO_FEW_SAMPLES', `${plan.file} has fewer samples than one batch of ${cfg.batchSize}`, {
            hint: `Pass --batch-sizes ${dataset.numSamples} or less.`,
          });
        // Warm-up: the first batches pay for worker start-up and cold caches.
        let warm = 0;
        outer: while (warm < plan.warmupBatches) {
          for await (const _ of loader) {
            void _;
            if (++warm >= plan.warmupBatches) break outer;
          }
        }
        const before = loader.stats();
        const net = loader.reader.remote?.client.stats;
        const net0 = net ? { ...net } : null;
        const sampleFrom = telemetry.samples().length;
        telemetry.setThroughput(null, index);
        measuring = true;
        lastCount = counted = 0;
        const t0 = performance.now();
        const deadline = t0 + plan.secondsPerPoint * 1000;
        let images = 0;
        let batches = 0;
        const arrivals: Array<[number, number]> = [];
        waited = waitedSteps = 0;
        while (performance.now() < deadline && !opts.signal?.aborted) {
          let asked = performance.now();
          for await (const b of loader) {
            const got = performance.now();
            waited += got - asked;
            waitedSteps++;
            images += b.size;
            counted += b.size;
            batches++;
            arrivals.push([got - t0, b.size]);
            if (got >= deadline || opts.signal?.aborted) break;
            asked = performance.now();
          }
        }
        const seconds = Math.max(1e-6, (performance.now() - t0) / 1000);
        measuring = false;
        const after = loader.stats();
        const waits = after.waitMs.slice(before.waitMs.length);
        const mine = telemetry.samples().slice(sampleFrom);
        const point: PointResult = pointResultOf({
          index,
          config: cfg,
          images,
          seconds,
          batches,
          waits,
          slices: sliceRates(arrivals, seconds, SLICES_PER_POINT),
          samples: mine,
          workerBusyMsPerBatch: batches ? (after.workerBusyMs - before.workerBusyMs) / batches : 0,
          pageCacheResident: await telemetry.pageCacheResidency(),
        });
        point.stages = timerStages(before, after, images);
        // The process cache's reads (OS cache off): pages re-read because the cache is smaller than what the order touches.
        if (!cfg.osCache && !isRemoteUrl(plan.file)) point.cacheReadBytes = (after.pagesRead - before.pagesRead) * loader.reader.pageSize;
        if (net && net0) {
          const requests = net.requests - net0.requests;
          point.network = {
            bytes: net.bytes - net0.bytes,
            requests,
            meanLatencyMs: requests > 0 ? (net.latencyMs - net0.latencyMs) / requests : 0,
          };
        }
        points.push(point);
        opts.onPoint?.(point, points.length, grid.length);
      } finally {
        telemetry.setThroughput(null, null);
        await loader.close();
      }
    }
    for (const engine of engines) {
      if (engine === 'beton' || opts.signal?.aborted) continue;
      try {
        await runEngine(engine);
      } catch (e) {
        // One engine's failure is one line; the others' points and the answer are kept.
        if (opts.signal?.aborted) break;
        const text = e instanceof Error ? e.message : String(e);
        const [message, ...rest] = text.split('\n');
        const failure: EngineFailure = {
          engine,
          message: message!.trim(),
          detail: rest.map((l) => l.trim()).join('\n'),
          measured: points.filter((p) => p.config.engine === engine).length,
        };
        engineFailures.push(failure);
        opts.onEngineFailed?.(failure);
      }
    }
    if (opts.signal?.aborted) status = 'cancelled';
  } finally {
    // Also on failure: no sampler (or nvidia-smi child) outlives the run.
    samples = await telemetry.stop();
  }
  const run: ProfileRun = {
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
  return { ...run, answer: answerOf(run) };
}
