import { formatRate, rateUnit } from './format.js';
import type { PointResult, TelemetrySample } from './types.js';
import { livePointRates } from './series.js';

/**
 * The throughput line of a profile job. While it runs: "now N img/s" (the latest sample). Once
 * it has stopped a "now" would be a stale instant, so: the best and the last measured point
 * (a sweep: final points, else the live per-point means; a command: its best and last
 * sample windows).
 */
export function rateText(
  status: string,
  mode: 'grid' | 'exec',
  samples: readonly TelemetrySample[],
  finalPoints: readonly Pick<PointResult, 'index' | 'imagesPerSec'>[],
  unit = 'images/s',
  /** The run's answer's best (its number and the point's label): once it is there, the line says it and nothing else calls itself best. */
  answerBest: { ips: number | null; label: string } | null = null,
): string | null {
  const noun = rateNoun(unit);
  if (status === 'running') {
    const latest = samples[samples.length - 1];
    return latest ? `now ${formatRate(latest.imagesPerSec, noun)}` : null;
  }
  if (answerBest) return answerBest.ips === null ? 'nothing measured' : `best ${formatRate(answerBest.ips, noun)} (${answerBest.label})`;
  let rates: Array<{ label: string; ips: number }>;
  if (mode === 'grid') {
    const pts = finalPoints.length
      ? finalPoints.map((p) => ({ index: p.index, ips: p.imagesPerSec }))
      : [...livePointRates(samples)].map(([index, ips]) => ({ index, ips }));
    rates = pts.map((p) => ({ label: `point ${p.index + 1}`, ips: p.ips }));
  } else {
    rates = samples
      .filter((s) => s.imagesPerSec !== null && s.imagesPerSec > 0)
      .map((s) => ({ label: `${(s.t / 1000).toFixed(1)} s`, ips: s.imagesPerSec! }));
  }
  if (!rates.length) return null;
  const best = rates.reduce((a, b) => (b.ips > a.ips ? b : a));
  const last = rates[rates.length - 1]!;
  return `best ${formatRate(best.ips, noun)} (${best.label}) · last ${formatRate(last.ips, noun)} (${last.label})`;
}

/** What a rate line counts, short: "img" for images/s (as the app always wrote it), "clips", "samples". */
export function rateNoun(unit: string): string {
  return unit === 'images/s' ? 'img' : unit.replace(/\/s$/, '');
}

/**
 * The unit of a list of runs' best rates (lib/format.ts rateUnit: images/s, clips/s for video
 * datasets), when every run shares it; null when they differ (each rate then says its own).
 */
export function sharedRateUnit(runs: ReadonlyArray<{ datasetSchema?: ReadonlyArray<{ type: string }> | null }>): string | null {
  const units = new Set(runs.map((r) => rateUnit(r.datasetSchema)));
  return units.size === 1 ? [...units][0]! : null;
}
