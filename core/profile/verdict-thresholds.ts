/** The verdict's thresholds, in one place so docs/profiler.md and the code cannot drift. */
export const THRESHOLDS = {
  /** Input-bound: the consumer waits more than this fraction of its step time… */
  waitFraction: 0.01,
  /** …and more than this many ms per batch (a sub-ms wait is noise on a fast step). */
  waitMs: 1,
  /** GPU idle below this utilisation (%)… */
  gpuIdlePercent: 50,
  /** …while the CPUs are saturated: mean busy fraction over all logical CPUs above this. */
  cpuSaturated: 0.9,
  /** GPU-bound above this utilisation (%). */
  gpuBusyPercent: 90,
  /** Workers count as all busy when busy time ≥ this × wall time × workers. */
  workersBusy: 0.85,
  /** Busy workers are really computing when the busy cores reach this × min(workers, cores); else they block on reads. */
  cpuWorking: 0.7,
  /** "Low CPU" for disk-bound: busy cores below this × min(workers, cores) (× all cores without a worker count). */
  cpuLow: 0.5,
  /** Storage is busy above this read rate (bytes/s)… */
  diskBytesPerSec: 20 * 1024 * 1024,
  /** …or when reads reach this fraction of the bytes the consumed samples occupy. */
  diskFractionOfData: 0.5,
  /** The page cache is cold below this residency. */
  coldCache: 0.5,
  /** A knob "still helps" when its last step up gained at least this much throughput. */
  scalingGain: 0.1,
  /** A dataset fits in RAM when it is at most this fraction of it (the rest is for the program). */
  ramFit: 0.8,
  /** Jittery supply: p95 wait above this × p50 wait. */
  jitter: 3,
} as const;
