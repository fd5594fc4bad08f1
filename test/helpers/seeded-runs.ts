/**
 * Hand-made profiler runs for seeding a runs database (e2e tests of the Runs screens):
 * points, telemetry samples and whole sweeps with every field the screens read, values
 * chosen by the caller where a test looks at them and plausible defaults elsewhere.
 */
import type { DatasetInfo, MachineInfo, PointResult, ProfileRun, TelemetrySample, Verdict } from '../../core/api/profile-model.js';

/** One sweep point of 2 s at `ips` images/s (batch 64, random order, OS cache). */
export const seedPoint = (index: number, workers: number, ips: number): PointResult => ({
  index,
  config: { workers, batchSize: 64, order: 'random', osCache: true },
  images: ips * 2,
  seconds: 2,
  imagesPerSec: ips,
  batchesPerSec: ips / 64,
  waitP50Ms: 64_000 / ips / 2,
  waitP95Ms: 64_000 / ips,
  workerBusyMsPerBatch: 40,
  cpuPerCore: [0.6, 0.7],
  rssPeakBytes: 2e8,
  diskReadBytes: 0,
  pageCacheResident: 1,
  gpuUtilMean: null,
});

/** A telemetry reading at `t` ms of point `point` at `ips` images/s (a busy loader unless `over` says otherwise). */
export const seedSample = (t: number, point: number, ips: number, over: Partial<TelemetrySample> = {}): TelemetrySample => ({
  t,
  point,
  imagesPerSec: ips,
  cpuPerCore: [0.7, 0.8],
  rssBytes: 2e8,
  diskReadBytes: 0,
  processCpu: 0.55,
  waitMsPerStep: 64_000 / ips,
  gpus: [],
  ...over,
});

/** The dataset a seeded run profiled, unless the run says otherwise. */
export const SEED_DATASET: DatasetInfo = {
  path: '/data/train.beton',
  sizeBytes: 5e8,
  headerSha256: 'ab'.repeat(32),
  contentSha256: 'cd'.repeat(32),
  numSamples: 10_000,
  schema: [{ name: 'image', type: 'rgb_image', typeId: 2 }],
};

export interface SweepSeed {
  startedAt: string;
  /** Default: startedAt. */
  finishedAt?: string;
  /** Workers of each point, and its images/s. */
  workers: number[];
  rates: number[];
  samples: TelemetrySample[];
  machine: MachineInfo;
  /** Fields that differ from SEED_DATASET. */
  dataset?: Partial<DatasetInfo>;
  batchesAhead?: number;
  verdict: Verdict | null;
}

/** A finished sweep (RRC 160 + flip, batch 64, random order, 2 s a point) over /data/train.beton. */
export function seedSweep(s: SweepSeed): ProfileRun {
  return {
    kind: 'sweep',
    startedAt: s.startedAt,
    finishedAt: s.finishedAt ?? s.startedAt,
    status: 'ok',
    plan: {
      file: '/data/train.beton',
      workers: s.workers,
      batchSizes: [64],
      orders: ['random'],
      osCache: [true],
      decoder: 'rrc:160',
      flip: true,
      ...(s.batchesAhead ? { batchesAhead: s.batchesAhead } : {}),
      secondsPerPoint: 2,
      warmupBatches: 2,
    },
    machine: s.machine,
    dataset: { ...SEED_DATASET, ...s.dataset },
    points: s.workers.map((w, i) => seedPoint(i, w, s.rates[i]!)),
    samples: s.samples,
    verdict: s.verdict,
  };
}
