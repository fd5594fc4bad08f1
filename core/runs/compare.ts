import type { PointConfig, PointResult, Verdict } from '../api/profile-model.js';
import type { Change, CompareRow, RunComparison, RunSummary } from '../api/runs-model.js';

// Run comparison, the domain logic behind `beton runs compare` and the app's compare view:
// pure functions over runs as read back (no database; RunsDb.compare loads and calls them).

/** Within this fraction of each other two rates count as the same (timing noise between runs). */
export const SAME_BAND = 0.05;

/**
 * B against A with a direction, in words: a ratio alone ("3.26×") does not say which run
 * is faster, and whether a number is good depends on it.
 */
export function changeOf(a: number, b: number): Change {
  if (!(a > 0)) return { direction: null, factor: null, text: 'A measured nothing: no ratio' };
  if (!(b > 0)) return { direction: null, factor: null, text: 'B measured nothing: no ratio' };
  const r = b / a;
  const direction = r > 1 + SAME_BAND ? 'faster' : r < 1 / (1 + SAME_BAND) ? 'slower' : 'same';
  const factor = r >= 1 ? r : b > 0 ? 1 / r : Number.POSITIVE_INFINITY;
  const x = Number.isFinite(factor) ? `${factor.toFixed(2)}×` : '∞×';
  const text = direction === 'same' ? `B is about as fast as A (${r.toFixed(2)}×)` : `B is ${x} ${direction} than A`;
  return { direction, factor: Number.isFinite(factor) ? factor : null, text };
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
      ...changeOf(p.imagesPerSec, q.imagesPerSec),
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
    best: changeOf(a.summary.bestImagesPerSec ?? 0, b.summary.bestImagesPerSec ?? 0),
    sameMachine: a.machineId === b.machineId,
    ...sameDataset(
      { id: a.summary.id, path: a.summary.datasetPath, sha: a.datasetSha256 },
      { id: b.summary.id, path: b.summary.datasetPath, sha: b.datasetSha256 },
    ),
  };
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
