import { createCpuSampler } from './cpu-sampler.js';
import { startGpuSampler, type GpuSampler } from './gpu-sampler.js';
import { pageCacheResidency } from './page-cache-residency.js';
import { createProcessSampler } from './process-sampler.js';
import type { GpuReading, TelemetrySample } from '../../api/profile-model.js';

export interface TelemetryOptions {
  /** Sampling period (default 250 ms, at least 20). */
  intervalMs?: number;
  /** Sample this process and its descendants (RSS, reads) instead of ourselves. */
  pid?: number;
  /** The dataset file, for pageCacheResidency(). */
  file?: string;
  /** Run nvidia-smi alongside. Without one, samples just carry `gpus: []`. */
  gpu: boolean;
  onSample?: (s: TelemetrySample) => void;
  onGpuUnavailable?: (reason: string) => void;
  /**
   * Pull hook: images/s over the window that just ended (`windowMs` long). When given it
   * replaces what setThroughput() last set — exec mode counts images itself, per window.
   */
  throughput?: (windowMs: number) => number | null;
  /** Pull hook: the consumer's mean wait per batch since the last call (ms), null when it took none. */
  waitPerStep?: () => number | null;
}

export interface Telemetry {
  /** Push hook for the sweep: the current throughput and grid point, stamped on later samples. */
  setThroughput(imagesPerSec: number | null, point: number | null): void;
  /** Page-cache residency of `file` now (mincore in the addon, else fincore); null without `file`. Call per point. */
  pageCacheResidency(): Promise<number | null>;
  /** Why there are no GPU readings, once known (null while nvidia-smi is fine, or with gpu: false). */
  readonly gpuUnavailable: string | null;
  /** The samples so far. */
  samples(): readonly TelemetrySample[];
  /** Stops sampling (waits for a sample in progress) and returns every sample. */
  stop(): Promise<TelemetrySample[]>;
}

/**
 * CPU per core, RSS, storage reads and GPU every `intervalMs`, as TelemetrySample.
 * Resolves once the baselines are read, so the first sample covers a real interval.
 * Ticks are aimed at start + k × interval (no drift); a tick still running when the next is
 * due makes that one skip rather than pile up.
 */
export async function startTelemetry(o: TelemetryOptions): Promise<Telemetry> {
  const interval = Math.max(20, o.intervalMs ?? 250);
  const [cpu, proc] = await Promise.all([createCpuSampler(), createProcessSampler(o.pid == null ? {} : { pid: o.pid })]);
  const t0 = performance.now();
  const samples: TelemetrySample[] = [];
  let ips: number | null = null;
  let point: number | null = null;
  let gpuUnavailable: string | null = null;
  let latestGpu: { readings: GpuReading[]; at: number } | null = null;
  // A reading older than this is not "now" any more (nvidia-smi stalled or died).
  const gpuStaleMs = Math.max(4 * interval, 1000);

  let gpu: GpuSampler | null = null;
  if (o.gpu) {
    gpu = startGpuSampler({
      intervalMs: interval,
      onReading: (readings) => (latestGpu = { readings, at: performance.now() }),
      onUnavailable: (reason) => {
        gpuUnavailable = reason;
        o.onGpuUnavailable?.(reason);
      },
    });
  }

  let stopped = false;
  let last = t0;
  let k = 0;
  let timer: NodeJS.Timeout | null = null;
  let inFlight: Promise<void> | null = null;

  const take = async (): Promise<void> => {
    const [cpuPerCore, p] = await Promise.all([cpu.sample(), proc.sample()]);
    const now = performance.now();
    const windowMs = now - last;
    last = now;
    const g = latestGpu != null && now - latestGpu.at <= gpuStaleMs ? latestGpu.readings : [];
    const s: TelemetrySample = {
      t: now - t0,
      point,
      imagesPerSec: o.throughput ? o.throughput(windowMs) : ips,
      cpuPerCore,
      rssBytes: p.rssBytes ?? 0,
      diskReadBytes: p.diskReadBytes ?? 0,
      gpus: g,
      processCpu:
        p.cpuMs == null || cpuPerCore.length === 0 || !(windowMs > 0) ? null : Math.min(1, p.cpuMs / (windowMs * cpuPerCore.length)),
      waitMsPerStep: o.waitPerStep ? o.waitPerStep() : null,
    };
    samples.push(s);
    o.onSample?.(s);
  };

  const schedule = (): void => {
    if (stopped) return;
    k++;
    const due = t0 + k * interval;
    timer = setTimeout(
      () => {
        if (stopped) return;
        if (inFlight == null) {
          inFlight = take()
            .catch(() => undefined) // a failed read skips one sample; telemetry must not crash the run
            .finally(() => (inFlight = null));
        }
        // Skip the slots a slow tick overran, so ticks stay on the grid.
        while (t0 + (k + 1) * interval <= performance.now()) k++;
        schedule();
      },
      Math.max(0, due - performance.now()),
    );
  };
  schedule();

  return {
    setThroughput(v, pt) {
      ips = v;
      point = pt;
    },
    pageCacheResidency: () => (o.file == null ? Promise.resolve(null) : pageCacheResidency(o.file)),
    get gpuUnavailable() {
      return gpuUnavailable;
    },
    samples: () => samples,
    async stop() {
      if (!stopped) {
        stopped = true;
        if (timer) clearTimeout(timer);
        gpu?.stop();
      }
      if (inFlight) await inFlight;
      return [...samples];
    },
  };
}
