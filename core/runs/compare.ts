import type { PointConfig, PointResult, Verdict } from '../api/profile-model.js';
import type { Change, CompareRow, RunComparison, RunSummary } from '../api/runs-model.js';
import { pointLabel } from '../api/profile-plan.js';
import { spreadOf } from '../profile/engines/engine-points.js';

// Run comparison, the domain logic behind `beton runs compare` and the app's compare view:
// pure functions over runs as read back (no database; RunsDb.compare loads and calls them).
// Only like is compared with like: points with the same settings, and the bests only when they
// were measured with the same settings. A difference inside the noise is said to be inside it
// and gets no direction (so no colour): a walk through the app found "B is 1.13× slower" in red
// for two bests at different batch sizes while 3 of 4 matching points were faster in B.

/** Within this fraction of each other two rates count as the same, at least (timing noise between runs). */
export const SAME_BAND = 0.05;

const pct = (x: number): string => `±${Math.round(x * 100)}%`;

/**
 * The band within which two points count as the same: the larger of SAME_BAND and each
 * point's own spread over its slices ((max − min) / median: how much it moved while measured).
 */
export function noiseOf(...points: ReadonlyArray<Pick<PointResult, 'slices'> | undefined>): number {
  return Math.max(SAME_BAND, ...points.map((p) => spreadOf(p?.slices) ?? 0));
}

/**
 * B against A with a direction, in words: a ratio alone ("3.26×") does not say which run
 * is faster, and whether a number is good depends on it. Within `noise` (a fraction) it is
 * "about as fast", with the noise stated.
 */
export function changeOf(a: number, b: number, noise = SAME_BAND): Change {
  if (!(a > 0)) return { direction: null, factor: null, text: 'A measured nothing: no ratio' };
  if (!(b > 0)) return { direction: null, factor: null, text: 'B measured nothing: no ratio' };
  const r = b / a;
  const band = Math.max(noise, 0);
  const direction = r > 1 + band ? 'faster' : r < 1 / (1 + band) ? 'slower' : 'same';
  const factor = r >= 1 ? r : 1 / r;
  const text =
    direction === 'same'
      ? `B is about as fast as A (${r.toFixed(2)}×, within the noise ${pct(band)})`
      : `B is ${factor.toFixed(2)}× ${direction} than A`;
  return { direction, factor, text, noise: band };
}

/** One side of a comparison: the run's summary and points, and what the summary leaves out. */
export interface ComparedRun {
  summary: RunSummary;
  /** By index, as stored. */
  points: readonly PointResult[];
  machineId: number;
  /** The run's own record of its dataset's content; null where it recorded none. */
  datasetSha256: string | null;
  verdict: Verdict | null;
}

// The engine is part of a point's identity: FFCV at 4 workers is not our loader at 4 workers.
const configKey = (c: PointConfig): string => `${c.engine ?? 'beton'}|${c.workers}|${c.batchSize}|${c.order}|${c.osCache ? 1 : 0}`;

/**
 * Compares two runs point by point (matching engine, workers, batch size, order and cache);
 * the first point of a configuration counts where a run measured it twice.
 */
export function compareRuns(a: ComparedRun, b: ComparedRun): RunComparison {
  const byKey = new Map<string, PointResult>();
  for (const p of b.points) if (!byKey.has(configKey(p.config))) byKey.set(configKey(p.config), p);
  const rows: CompareRow[] = [];
  const onlyInA: PointConfig[] = [];
  const seenA = new Set<string>();
  for (const p of a.points) {
    const k = configKey(p.config);
    if (seenA.has(k)) continue;
    seenA.add(k);
    const q = byKey.get(k);
    if (!q) {
      onlyInA.push(p.config);
      continue;
    }
    rows.push({
      config: p.config,
      a: { index: p.index, imagesPerSec: p.imagesPerSec },
      b: { index: q.index, imagesPerSec: q.imagesPerSec },
      ratio: p.imagesPerSec > 0 ? q.imagesPerSec / p.imagesPerSec : null,
      ...changeOf(p.imagesPerSec, q.imagesPerSec, noiseOf(p, q)),
    });
  }
  const onlyInB = [...byKey.entries()].filter(([k]) => !seenA.has(k)).map(([, p]) => p.config);
  return {
    a: a.summary,
    b: b.summary,
    rows,
    onlyInA,
    onlyInB,
    verdicts: { a: a.verdict, b: b.verdict },
    best: bestChange(a, b),
    headline: headlineOf(rows),
    sameMachine: a.machineId === b.machineId,
    ...sameDataset(
      { id: a.summary.id, path: a.summary.datasetPath, sha: a.datasetSha256 },
      { id: b.summary.id, path: b.summary.datasetPath, sha: b.datasetSha256 },
    ),
  };
}

/** The best point of a run (the first of equals), or undefined. */
const bestOf = (points: readonly PointResult[]): PointResult | undefined =>
  points.reduce<PointResult | undefined>((m, p) => (!m || p.imagesPerSec > m.imagesPerSec ? p : m), undefined);

const settingsText = (c: PointConfig): string => pointLabel({ ...c, engine: c.engine ?? 'beton' });

/** B's best against A's best, only when both were measured with the same settings. */
function bestChange(a: ComparedRun, b: ComparedRun): Change {
  const [pa, pb] = [bestOf(a.points), bestOf(b.points)];
  if (!pa && !pb && a.summary.kind === 'exec' && b.summary.kind === 'exec')
    // Two training commands: each run's rate is its own (no grid), compared as measured.
    return changeOf(a.summary.bestImagesPerSec ?? 0, b.summary.bestImagesPerSec ?? 0);
  if (!pa || !pb)
    return {
      direction: null,
      factor: null,
      text: `not compared: ${!pa ? 'A' : 'B'} has no grid points (a training command or nothing measured), the other is a loader sweep`,
    };
  if (configKey(pa.config) !== configKey(pb.config))
    return {
      direction: null,
      factor: null,
      text: `not compared: the best points were measured with different settings (A: ${settingsText(pa.config)}; B: ${settingsText(pb.config)}); see the matching points`,
    };
  return changeOf(pa.imagesPerSec, pb.imagesPerSec, noiseOf(pa, pb));
}

const range = (rows: readonly CompareRow[]): string => {
  const fs = rows.map((r) => r.factor ?? 1);
  const [lo, hi] = [Math.min(...fs), Math.max(...fs)];
  return lo.toFixed(2) === hi.toFixed(2) ? `${lo.toFixed(2)}×` : `${lo.toFixed(2)}–${hi.toFixed(2)}×`;
};

/** Over the matched points only: how many B measured faster, slower and within the noise, in one line. */
export function headlineOf(rows: readonly CompareRow[]): RunComparison['headline'] {
  const compared = rows.filter((r) => r.direction !== null);
  const faster = compared.filter((r) => r.direction === 'faster');
  const slower = compared.filter((r) => r.direction === 'slower');
  const same = compared.filter((r) => r.direction === 'same');
  const counts = { matched: rows.length, faster: faster.length, slower: slower.length, same: same.length };
  if (!compared.length)
    return { direction: null, factor: null, text: 'no point with the same settings in both runs: nothing to compare', ...counts };
  const noise = Math.max(...compared.map((r) => r.noise ?? SAME_BAND));
  const n = compared.length;
  const parts: string[] = [];
  if (faster.length) parts.push(`faster at ${faster.length} (${range(faster)})`);
  if (slower.length) parts.push(`slower at ${slower.length} (${range(slower)})`);
  if (same.length) parts.push(`within the noise at ${same.length}`);
  const points = `${n} matching point${n === 1 ? '' : 's'}`;
  const direction = !faster.length && !slower.length ? 'same' : !slower.length ? 'faster' : !faster.length ? 'slower' : null;
  const lead =
    direction === 'same' ? `B is about as fast as A at ${n === 1 ? 'the' : 'all'} ${points}` : `Of ${points}, B is ${parts.join(', ')}`;
  // A single factor only when every point outside the noise agrees (the median of theirs).
  const moved = direction === 'faster' ? faster : direction === 'slower' ? slower : [];
  const fs = moved.map((r) => r.factor ?? 1).sort((x, y) => x - y);
  const factor = fs.length ? fs[Math.floor(fs.length / 2)]! : null;
  return { direction, factor, text: `${lead}; noise ${pct(noise)}`, noise, ...counts };
}

/** Whether two runs measured the same dataset, by content hash; null (unknown) where a run recorded none. */
function sameDataset(
  a: { id: number; path: string | null; sha: string | null },
  b: { id: number; path: string | null; sha: string | null },
): { sameDataset: boolean | null; datasetNote: string } {
  const missing = [a, b].filter((r) => r.sha === null);
  if (missing.length) {
    const who = missing.map((r) => `run ${r.id}`).join(' and ');
    return {
      sameDataset: null,
      datasetNote: `dataset unknown: ${who} recorded no dataset content (a command run without a .beton file, or recorded before content hashes)`,
    };
  }
  const short = a.sha!.slice(0, 12);
  if (a.sha === b.sha)
    return {
      sameDataset: true,
      datasetNote: `same dataset (content ${short}…)${a.path !== b.path ? `, at ${a.path ?? '?'} and ${b.path ?? '?'}` : ''}`,
    };
  if (a.path !== null && a.path === b.path)
    return { sameDataset: false, datasetNote: `different datasets: ${a.path} was rebuilt between the runs (its content differs)` };
  return { sameDataset: false, datasetNote: 'different datasets (their content differs)' };
}
