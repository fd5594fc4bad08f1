/**
 * The verdict's thresholds, in one place: the rules (verdict-rules.ts), the sentences they
 * write and the rules table in docs/profiler.md (checked by test/profile/profile-verdict.test.ts)
 * all read them here, so a number cannot say one thing in a summary and another in a rule.
 */
export const THRESHOLDS = {
  /**
   * The consumer "waits" when its median wait for a batch is more than this fraction of its
   * step time. No absolute floor in ms: a 0.9 ms wait is 90% of a 1 ms step, not noise
   * (waits are timed with performance.now(), microsecond resolution).
   */
  waitFraction: 0.05,
  /** The GPU idles below this utilisation (%). */
  gpuIdlePercent: 50,
  /** The CPUs are saturated above this mean busy fraction over all logical CPUs (whoever keeps them busy). */
  cpuSaturated: 0.9,
  /** GPU-bound above this utilisation (%). */
  gpuBusyPercent: 90,
  /** Workers count as all busy when busy time ≥ this × wall time × workers. */
  workersBusy: 0.85,
  /** Busy workers are really computing when the busy cores reach this × min(workers, cores); else they block on reads. */
  cpuWorking: 0.7,
  /** "Mostly idle" CPUs (disk-bound): busy cores below this × min(workers, cores) (× all cores without a worker count). */
  cpuLow: 0.5,
  /** Storage is busy above this read rate (bytes/s)… */
  diskBytesPerSec: 20 * 1024 * 1024,
  /** …or when reads reach this fraction of the bytes the consumed samples occupy. */
  diskFractionOfData: 0.5,
  /** The page cache is cold below this residency (with the OS cache). */
  coldCache: 0.5,
  /** A knob "still helps" when its last step up gained at least this much throughput. */
  scalingGain: 0.1,
  /** A dataset fits in RAM when it is at most this fraction of it (the rest is for the program). */
  ramFit: 0.8,
  /** Jittery supply: p95 wait above this × p50 wait. */
  jitter: 3,
  /**
   * Contention: other processes (the machine's CPU minus the loader's process tree) used more
   * than this fraction of all CPUs while the point ran; the loader then had less CPU than it
   * will have, so the numbers understate it and "decode-bound" would blame the wrong thing.
   */
  contention: 0.2,
} as const;
