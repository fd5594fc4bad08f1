import { createHash } from 'node:crypto';
import { openSync, readSync, closeSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { FIELD_DESCRIPTOR_SIZE, HEADER_SIZE } from '../format/constants.js';
import { Loader } from '../loader/loader.js';
import { RandomHorizontalFlip, ToCHW, type PipelineStep } from '../pipeline/spec.js';
import { Reader } from '../reader/reader.js';
import { BetonError } from '../format/errors.js';
import { fitBatchSize, loaderMemoryError, parseDecoder } from './bench-loader.js';
import { datasetContentSha256 } from '../reader/content-hash.js';
import { machineInfo } from './machine.js';
import { startTelemetry } from './telemetry.js';
import type { DatasetInfo, PointConfig, PointResult, ProfilePlan, ProfileRun, TelemetrySample } from './types.js';
import { diagnose } from './verdict.js';

export interface SweepOptions {
  signal?: AbortSignal;
  /** Every ~250 ms while it runs (live charts). */
  onSample?: (s: TelemetrySample) => void;
  onPoint?: (p: PointResult, done: number, total: number) => void;
  /** Sample GPUs with nvidia-smi (default true; "no GPU" is reported once and ignored). */
  gpu?: boolean;
  /** A default changed to fit the file (a batch larger than the dataset), for people. */
  onNote?: (message: string) => void;
}

/** Default worker grid: 1, 2, 4, … up to the core count, and the core count. */
export function defaultWorkers(cores = availableParallelism()): number[] {
  const out: number[] = [];
  for (let w = 1; w < cores; w *= 2) out.push(w);
  out.push(cores);
  return out;
}

export function completePlan(p: Partial<ProfilePlan> & { file: string }): ProfilePlan {
  return {
    file: resolve(p.file),
    workers: p.workers?.length ? p.workers : defaultWorkers(),
    batchSizes: p.batchSizes?.length ? p.batchSizes : [256],
    orders: p.orders?.length ? p.orders : ['random'],
    osCache: p.osCache?.length ? p.osCache : [true],
    decoder: p.decoder ?? 'rrc:160',
    flip: p.flip ?? true,
    // Only when asked: plans stored before the option keep their shape.
    ...(p.fastDecode ? { fastDecode: true } : {}),
    ...(p.batchesAhead !== undefined ? { batchesAhead: p.batchesAhead } : {}),
    secondsPerPoint: p.secondsPerPoint ?? 3,
    warmupBatches: p.warmupBatches ?? 2,
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

/** RGBImageField metadata (mode u8: 0 JPEG, 1 raw; width, height <u2) summed over the image fields. */
function storedImages(reader: Reader): { images?: { raw: number; jpg: number; maxSide: number } } {
  const fields = reader.fields.flatMap(({ field }, f) => (field.type === 'rgb_image' ? [f] : []));
  if (fields.length === 0) return {};
  const images = { raw: 0, jpg: 0, maxSide: 0 };
  for (let i = 0; i < reader.numSamples; i++) {
    for (const f of fields) {
      const m = reader.fieldMetadata(i, f);
      if (m.getUint8(0) === 0) images.jpg++;
      else images.raw++;
      images.maxSide = Math.max(images.maxSide, m.getUint16(1, true), m.getUint16(3, true));
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

const pct = (xs: number[], q: number): number => {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * (s.length - 1) + 0.5))]!;
};

/**
 * Runs the loader over a grid (workers × batch sizes × orders × cache), each point for a
 * bounded time after a warm-up, sampling CPU, memory, disk and GPU every ~250 ms, and
 * diagnoses the bottleneck. Cancel with `signal`: the run ends with status 'cancelled'.
 */
export async function profile(planInput: Partial<ProfilePlan> & { file: string }, opts: SweepOptions = {}): Promise<ProfileRun> {
  const startedAt = new Date().toISOString();
  const file = resolve(planInput.file);
  const [machine, dataset] = await Promise.all([machineInfo(), Promise.resolve(datasetInfo(file))]);
  // Checked before any point runs: batch sizes must fit the file (the default is capped at
  // its size), and the decoder must parse, so a sweep never ends in an error after minutes.
  const batchSizes = planInput.batchSizes?.length
    ? planInput.batchSizes.map((b) => fitBatchSize(file, dataset.numSamples, b, '--batch-sizes'))
    : [fitBatchSize(file, dataset.numSamples, undefined, '--batch-sizes', opts.onNote)];
  const plan = completePlan({ ...planInput, batchSizes });
  const r = Reader.openSync(plan.file);
  const imageField = r.fields.find((f) => f.field.type === 'rgb_image')?.name;
  r.close();
  const steps: PipelineStep[] = [parseDecoder(plan.decoder), ...(plan.flip ? [RandomHorizontalFlip()] : []), ToCHW()];
  const grid: PointConfig[] = [];
  for (const osCache of plan.osCache)
    for (const order of plan.orders)
      for (const batchSize of plan.batchSizes) for (const workers of plan.workers) grid.push({ workers, batchSize, order, osCache });

  // Throughput for the telemetry: images counted by the point loop, read every sample.
  let counted = 0;
  let lastCount = 0;
  let measuring = false;
  // The consumer's wait per batch, summed between telemetry samples.
  let waited = 0;
  let waitedSteps = 0;
  const telemetry = await startTelemetry({
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
  const points: PointResult[] = [];
  let samples: TelemetrySample[] = [];
  let status: ProfileRun['status'] = 'ok';
  try {
    for (const [index, cfg] of grid.entries()) {
      if (opts.signal?.aborted) {
        status = 'cancelled';
        break;
      }
      const loader = await Loader.open(plan.file, {
        batchSize: cfg.batchSize,
        numWorkers: cfg.workers,
        order: cfg.order,
        osCache: cfg.osCache,
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
        const sampleFrom = telemetry.samples().length;
        telemetry.setThroughput(null, index);
        measuring = true;
        lastCount = counted = 0;
        const t0 = performance.now();
        const deadline = t0 + plan.secondsPerPoint * 1000;
        let images = 0;
        let batches = 0;
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
            if (got >= deadline || opts.signal?.aborted) break;
            asked = performance.now();
          }
        }
        const seconds = Math.max(1e-6, (performance.now() - t0) / 1000);
        measuring = false;
        const after = loader.stats();
        const waits = after.waitMs.slice(before.waitMs.length);
        const mine = telemetry.samples().slice(sampleFrom);
        const cores = mine[0]?.cpuPerCore.length ?? 0;
        const cpuPerCore = Array.from(
          { length: cores },
          (_, c) => mine.reduce((s, x) => s + (x.cpuPerCore[c] ?? 0), 0) / Math.max(1, mine.length),
        );
        const gpuVals = mine.flatMap((s) => s.gpus.map((g) => g.utilPercent));
        const point: PointResult = {
          index,
          config: cfg,
          images,
          seconds,
          imagesPerSec: images / seconds,
          batchesPerSec: batches / seconds,
          waitP50Ms: pct(waits, 0.5),
          waitP95Ms: pct(waits, 0.95),
          workerBusyMsPerBatch: batches ? (after.workerBusyMs - before.workerBusyMs) / batches : 0,
          cpuPerCore,
          rssPeakBytes: mine.reduce((m, s) => Math.max(m, s.rssBytes), process.memoryUsage().rss),
          diskReadBytes: mine.reduce((s, x) => s + x.diskReadBytes, 0),
          pageCacheResident: await telemetry.pageCacheResidency(),
          gpuUtilMean: gpuVals.length ? gpuVals.reduce((a, b) => a + b, 0) / gpuVals.length : null,
        };
        points.push(point);
        opts.onPoint?.(point, points.length, grid.length);
      } finally {
        telemetry.setThroughput(null, null);
        await loader.close();
      }
    }
    if (opts.signal?.aborted) status = 'cancelled';
  } finally {
    // Also on failure: no sampler (or nvidia-smi child) outlives the run.
    samples = await telemetry.stop();
  }
  return {
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
  };
}
