import * as f from './verdict-format.js';
import { THRESHOLDS } from './verdict-thresholds.js';
import type { DatasetInfo, MachineInfo, PointConfig, PointResult } from '../../api/profile-model.js';

/**
 * What the sweep's grid says about each knob, measured rather than guessed: FFCV's tuning
 * advice ("more workers", "larger batches", "os_cache when it fits in RAM, quasi-random
 * when it does not") only where the points back it. Pure.
 */

/** The best point and the next-lower value of one knob, everything else equal. */
export interface Step {
  lower: PointResult;
  best: PointResult;
  /** best / lower − 1 */
  gain: number;
  /** No point with a higher value of the knob was measured (so the trend may go on). */
  bestIsMax: boolean;
}

type Knob = 'workers' | 'batchSize';

const same = (a: PointConfig, b: PointConfig, except: keyof PointConfig): boolean =>
  (Object.keys(a) as Array<keyof PointConfig>).every((k) => k === except || a[k] === b[k]);

export function stepDown(points: readonly PointResult[], best: PointResult, knob: Knob): Step | null {
  const row = points.filter((p) => p.images > 0 && same(p.config, best.config, knob));
  const lower = row.filter((p) => p.config[knob] < best.config[knob]).sort((a, b) => b.config[knob] - a.config[knob])[0];
  if (!lower || lower.imagesPerSec <= 0) return null;
  return { lower, best, gain: best.imagesPerSec / lower.imagesPerSec - 1, bestIsMax: !row.some((p) => p.config[knob] > best.config[knob]) };
}

/** Best throughput for each value of a knob (over all other settings). */
function bestBy<K extends 'osCache' | 'order'>(points: readonly PointResult[], knob: K): Map<PointConfig[K], PointResult> {
  const m = new Map<PointConfig[K], PointResult>();
  for (const p of points) {
    const cur = m.get(p.config[knob]);
    if (p.images > 0 && (!cur || p.imagesPerSec > cur.imagesPerSec)) m.set(p.config[knob], p);
  }
  return m;
}

export function moreWorkers(points: readonly PointResult[], best: PointResult, machine: MachineInfo): string | null {
  const s = stepDown(points, best, 'workers');
  const w = best.config.workers;
  if (s && s.bestIsMax && s.gain >= THRESHOLDS.scalingGain) {
    const next = Math.max(w + 1, Math.min(2 * w, machine.cores));
    const room =
      w < machine.cores
        ? `try ${next} (the machine has ${machine.cores} logical cores)`
        : `the machine has only ${machine.cores} logical cores: a bigger machine would help`;
    return `More workers: ${s.lower.config.workers} → ${f.count(w, 'worker')} raised throughput ${f.ips(s.lower.imagesPerSec)} → ${f.ips(best.imagesPerSec)} (+${f.pct(s.gain)}); ${room}.`;
  }
  // "Sweep more" only when no larger count was measured: one that was, and lost, answered it.
  const largerMeasured = points.some(
    (p) =>
      p.images > 0 &&
      p.config.workers > w &&
      p.config.batchSize === best.config.batchSize &&
      p.config.order === best.config.order &&
      p.config.osCache === best.config.osCache,
  );
  if (!s && !largerMeasured && w < machine.cores)
    return `More workers: only ${f.count(w, 'worker')} for ${f.count(machine.cores, 'logical core')}; sweep workers up to ${machine.cores} (Profile → Workers, beton profile --workers).`;
  return null;
}

export function largerBatch(points: readonly PointResult[], best: PointResult): string | null {
  const s = stepDown(points, best, 'batchSize');
  if (!s || !s.bestIsMax || s.gain < THRESHOLDS.scalingGain) return null;
  return `Larger batches: batch ${s.lower.config.batchSize} → ${best.config.batchSize} raised throughput ${f.ips(s.lower.imagesPerSec)} → ${f.ips(best.imagesPerSec)} (+${f.pct(s.gain)}); try ${2 * best.config.batchSize} if the model's memory allows (per-batch overheads are then shared by more images).`;
}

/** Does the dataset fit in memory, as far as we know? */
export function fitsInRam(dataset: DatasetInfo | null, machine: MachineInfo): boolean | null {
  if (!dataset || machine.ramBytes <= 0) return null;
  return dataset.sizeBytes <= THRESHOLDS.ramFit * machine.ramBytes;
}

/**
 * osCache and order advice. `measuredOnly`: just what the grid compared — when storage is not
 * the problem, advice from the file's size alone would be beside the point.
 */
export function cacheAdvice(
  points: readonly PointResult[],
  dataset: DatasetInfo | null,
  machine: MachineInfo,
  measuredOnly = false,
): string[] {
  const out: string[] = [];
  const byCache = bestBy(points, 'osCache');
  const on = byCache.get(true);
  const off = byCache.get(false);
  const fits = fitsInRam(dataset, machine);
  const size = dataset ? `the ${f.bytes(dataset.sizeBytes)} file` : 'the file';
  if (on && off) {
    const better = on.imagesPerSec >= off.imagesPerSec ? on : off;
    const worse = better === on ? off : on;
    out.push(
      `osCache ${better.config.osCache ? 'on' : 'off'}: ${f.ips(better.imagesPerSec)} against ${f.ips(worse.imagesPerSec)} with it ${worse.config.osCache ? 'on' : 'off'} (best of each; Profile → Cache, beton profile --os-cache, the loader's osCache).`,
    );
  } else if (fits === true && !measuredOnly) {
    out.push(
      `osCache on: ${size} fits in ${f.bytes(machine.ramBytes)} of RAM, so after the first epoch every read is served from the page cache (Profile → Cache "OS page cache", beton profile --os-cache on, the loader's osCache).`,
    );
  }
  if (fits === false && !measuredOnly) {
    const byOrder = bestBy(points, 'order');
    const q = byOrder.get('quasi_random');
    const r = byOrder.get('random');
    const measured = q && r ? ` (measured: ${f.ips(q.imagesPerSec)} quasi_random against ${f.ips(r.imagesPerSec)} random)` : '';
    out.push(
      `order quasi_random with osCache off: ${size} is larger than ${f.pct(THRESHOLDS.ramFit)} of the ${f.bytes(machine.ramBytes)} RAM, so random order keeps missing the page cache; quasi_random reads whole pages in runs${measured}.`,
    );
  }
  return out;
}

/*
 * Build-time knobs are named as both places offer them: the Sources screen's field table
 * (Write mode, Max resolution, Pass-through…) and `beton build`'s flags.
 */
export function decodeAdvice(
  best: PointResult | null,
  machine: MachineInfo,
  cpusSaturated = false,
  dataset: DatasetInfo | null = null,
): string[] {
  const out: string[] = [];
  // What the file already is (older runs recorded no image stats: then every line applies).
  const images = dataset?.images;
  // Saturated CPUs have no core to spare: more workers would only share them.
  if (best && best.config.workers < machine.cores && !cpusSaturated)
    out.push(
      `Use every core: ${f.count(best.config.workers, 'worker')} on ${f.count(machine.cores, 'logical core')} (Profile → Workers, beton profile --workers ${machine.cores}).`,
    );
  if (!images || images.jpg > 0)
    out.push(
      'Store images raw: rebuild with Write mode raw (Sources; beton build --write-mode raw), or smart with a higher Smart threshold (--smart-threshold), or proportion with a lower Compress p. (--compress-probability); raw images skip JPEG decoding at the cost of disk and RAM.',
    );
  if (!images)
    out.push(
      'Lower Max resolution at build time (Sources; beton build --max-resolution): decoding and resizing cost grows with the stored pixels, and most pipelines crop far smaller.',
    );
  else if (images.maxSide > SMALLEST_WORTH_SHRINKING)
    out.push(
      `Store smaller images: the largest is ${images.maxSide} px on its longer side; rebuild with a Max resolution below that (Sources; beton build --max-resolution ${Math.max(SMALLEST_WORTH_SHRINKING, Math.floor(images.maxSide / 2))}): decoding and resizing cost grows with the stored pixels, and most pipelines crop far smaller.`,
    );
  if (!images || (images.jpg > 0 && images.maxSide > SMALLEST_WORTH_SHRINKING))
    out.push(
      'If the file was built with Pass-through (--pass-through), its JPEGs are the full-size sources: rebuild without it and with a Max resolution (--max-resolution) to store smaller ones.',
    );
  return out;
}

/** Below this longer side, shrinking the stored images is not worth suggesting (crops are 160-224). */
const SMALLEST_WORTH_SHRINKING = 128;

export function diskAdvice(points: readonly PointResult[], dataset: DatasetInfo | null, machine: MachineInfo): string[] {
  const out = cacheAdvice(points, dataset, machine);
  const images = dataset?.images;
  if (!images || images.raw > 0)
    out.push(
      'Smaller files read faster: store JPEG (Sources → Write mode jpg or smart, a lower JPEG quality or Max resolution; beton build --write-mode jpg --jpeg-quality --max-resolution) to trade CPU for bytes.',
    );
  else
    out.push(
      `Smaller files read faster: the images are JPEG already; a lower JPEG quality (--jpeg-quality) or a Max resolution below the stored ${images.maxSide} px (--max-resolution) stores fewer bytes.`,
    );
  out.push('Put the file on faster storage (a local NVMe copy instead of a network or spinning disk).');
  return out;
}
