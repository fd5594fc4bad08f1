import type { DatasetInfo, MachineInfo, PointResult, TelemetrySample } from '../../api/profile-model.js';

/**
 * The numbers a verdict is drawn from, for one operating point: the best grid point of a sweep,
 * or the run of an exec. Any of them may be unknown (null): exec mode has no loader statistics,
 * a machine without nvidia-smi no GPU utilisation. Pure.
 */
export interface Measures {
  source: 'point' | 'exec';
  point: PointResult | null;
  imagesPerSec: number | null;
  /** The consumer's time per batch (ms). */
  stepMs: number | null;
  waitP50Ms: number | null;
  waitP95Ms: number | null;
  /** waitP50 / step time. */
  waitFraction: number | null;
  /** Worker busy time / (wall time × workers). */
  workerBusyFraction: number | null;
  /** Mean busy fraction over all logical CPUs, and the same as a count of busy cores. */
  cpuMean: number | null;
  cpuBusyCores: number | null;
  cores: number;
  /** Mean GPU utilisation (%) over GPUs and samples. */
  gpuUtil: number | null;
  gpuCount: number;
  diskBytesPerSec: number | null;
  diskBytes: number | null;
  /** Storage reads / bytes the consumed samples occupy in the file (needs the dataset). */
  diskFractionOfData: number | null;
  pageCacheResident: number | null;
  osCache: boolean | null;
  seconds: number | null;
  /** The loader's process tree's CPU and the machine's, mean busy fractions of all CPUs (points measured with engines). */
  loaderCpu: number | null;
  machineCpu: number | null;
  /** machineCpu − loaderCpu: what other processes took. */
  otherCpu: number | null;
  /** The loader's process tree's CPU as busy cores (loaderCpu × cores); null when unknown. Rules about the loader's own work use it, so other processes' load does not hide an idle loader. */
  loaderBusyCores?: number | null;
  /** A sweep's GPU reading, kept apart: the sweep does not drive the GPU, so it is not evidence (gpuUtil is null then). */
  gpuNotUsed: number | null;
  /** A remote file: bytes fetched per second during the point, and the GETs' mean latency; null for local files. */
  networkBytesPerSec?: number | null;
  networkLatencyMs?: number | null;
}

const mean = (xs: readonly number[]): number | null => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length);
// reduce, not Math.max(...xs): a long run has more samples than a call may take arguments.
const maxOf = (xs: readonly number[]): number => xs.reduce((a, b) => Math.max(a, b), 0);

/** The mean busy fraction per core of a set of samples, averaged over cores. */
function cpuOf(samples: readonly TelemetrySample[]): number[] {
  const n = maxOf(samples.map((s) => s.cpuPerCore.length));
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(mean(samples.map((s) => s.cpuPerCore[i] ?? 0)) ?? 0);
  return out;
}

/** GPU utilisation over the samples that have readings: mean per sample across GPUs, then over samples. */
function gpuOf(samples: readonly TelemetrySample[]): { util: number | null; count: number } {
  const withGpu = samples.filter((s) => s.gpus.length > 0);
  return { util: mean(withGpu.map((s) => mean(s.gpus.map((g) => g.utilPercent))!)), count: maxOf(withGpu.map((s) => s.gpus.length)) };
}

/** The fastest point: what limits the best configuration is what is worth fixing. */
export function bestPoint(points: readonly PointResult[]): PointResult | null {
  let best: PointResult | null = null;
  for (const p of points) if (p.images > 0 && (best == null || p.imagesPerSec > best.imagesPerSec)) best = p;
  return best;
}

export function measurePoint(
  p: PointResult,
  samples: readonly TelemetrySample[],
  machine: MachineInfo,
  dataset: DatasetInfo | null,
): Measures {
  const own = samples.filter((s) => s.point === p.index);
  const perCore = p.cpuPerCore.length > 0 ? p.cpuPerCore : cpuOf(own);
  const cpuMean = mean(perCore);
  const gpu = gpuOf(own);
  const stepMs = p.batchesPerSec > 0 ? 1000 / p.batchesPerSec : null;
  const loaderCpu = p.loaderCpu ?? null;
  const machineCpu = p.machineCpu ?? null;
  // Only our loader reports worker busy time; a Python engine's is unknown, not 0.
  const ours = (p.config.engine ?? 'beton') === 'beton';
  const bytesPerSample = dataset && dataset.numSamples > 0 ? dataset.sizeBytes / dataset.numSamples : null;
  return {
    source: 'point',
    point: p,
    imagesPerSec: p.imagesPerSec,
    stepMs,
    waitP50Ms: p.waitP50Ms,
    waitP95Ms: p.waitP95Ms,
    // Capped at the whole step: a batch slower than the step period (a stall at the slice's
    // edge) would read as "waits 101% of each step", which no step can.
    waitFraction: stepMs ? Math.min(1, p.waitP50Ms / stepMs) : null,
    // workerBusyMsPerBatch is the workers' summed busy time per batch, so busy time per second
    // of wall time is it × batches/s; divided by the worker count it is a 0..1 fraction.
    workerBusyFraction: ours && p.config.workers > 0 ? (p.workerBusyMsPerBatch * p.batchesPerSec) / 1000 / p.config.workers : null,
    cpuMean,
    cpuBusyCores: perCore.length > 0 ? perCore.reduce((a, b) => a + b, 0) : null,
    cores: perCore.length || machine.cores,
    // A sweep drives no GPU: whatever uses it is other work, never evidence for a loader setting.
    gpuUtil: null,
    gpuNotUsed: p.gpuUtilMean ?? gpu.util,
    gpuCount: gpu.count || machine.gpus.length,
    loaderCpu,
    machineCpu,
    otherCpu: loaderCpu != null && machineCpu != null ? Math.max(0, machineCpu - loaderCpu) : null,
    loaderBusyCores: loaderCpu != null ? loaderCpu * (perCore.length || machine.cores) : null,
    diskBytesPerSec: p.seconds > 0 ? p.diskReadBytes / p.seconds : null,
    diskBytes: p.diskReadBytes,
    diskFractionOfData: bytesPerSample != null && p.images > 0 ? p.diskReadBytes / (p.images * bytesPerSample) : null,
    pageCacheResident: p.pageCacheResident,
    osCache: p.config.osCache,
    seconds: p.seconds,
    networkBytesPerSec: p.network && p.seconds > 0 ? p.network.bytes / p.seconds : null,
    networkLatencyMs: p.network ? p.network.meanLatencyMs : null,
  };
}

/**
 * Exec mode: the whole run, but only the samples where the command was producing images when
 * it reported any — start-up (imports, compilation) and the tail would otherwise read as "idle".
 */
export function measureExec(samples: readonly TelemetrySample[], machine: MachineInfo): Measures {
  const producing = (s: TelemetrySample): boolean => s.imagesPerSec != null && s.imagesPerSec > 0;
  const training = samples.filter(producing);
  const keep = training.length > 0 ? producing : () => true;
  const use = training.length > 0 ? training : samples;
  const perCore = cpuOf(use);
  const gpu = gpuOf(use);
  // Each sample covers the time since the previous one; the first, the time since the start.
  let spanMs = 0;
  let diskBytes = 0;
  samples.forEach((s, i) => {
    if (!keep(s)) return;
    spanMs += s.t - (i > 0 ? samples[i - 1]!.t : 0);
    diskBytes += s.diskReadBytes;
  });
  return {
    source: 'exec',
    point: null,
    imagesPerSec: mean(training.map((s) => s.imagesPerSec!)),
    stepMs: null,
    waitP50Ms: null,
    waitP95Ms: null,
    waitFraction: null,
    workerBusyFraction: null,
    cpuMean: mean(perCore),
    cpuBusyCores: perCore.length > 0 ? perCore.reduce((a, b) => a + b, 0) : null,
    cores: perCore.length || machine.cores,
    gpuUtil: gpu.util,
    gpuNotUsed: null,
    gpuCount: gpu.count || machine.gpus.length,
    loaderCpu: null,
    machineCpu: null,
    otherCpu: null,
    diskBytesPerSec: spanMs > 0 ? (diskBytes / spanMs) * 1000 : null,
    diskBytes,
    diskFractionOfData: null,
    pageCacheResident: null,
    osCache: null,
    seconds: spanMs / 1000,
  };
}
