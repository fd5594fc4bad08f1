/**
 * What the runs database answers (core/runs/runs-db.ts produces these): a stored run, the
 * list's summaries, recorded builds and the comparison of two runs. Part of the contract so
 * that `runs.get` / `runs.compare` are typed all the way to the renderer (types only from
 * core/api): a change to what core/runs returns breaks the renderer's type-check, not its screens.
 */
import type { BuildReport } from './build-report.js';
import type { DatasetInfo, PointConfig, ProfileRun, Verdict, VerdictKind } from './profile-model.js';

/**
 * A run's status as read: 'running' until finishRun(); 'interrupted' when it stopped before its
 * end and kept what it had measured — a signal stopped it, or its process went away (no
 * heartbeat: core/runs/liveness.ts).
 */
export type RunStatus = ProfileRun['status'] | 'running' | 'interrupted';

/** A run as stored: a ProfileRun with its id, whose status may still be 'running'. */
export interface StoredRun extends Omit<ProfileRun, 'id' | 'status'> {
  id: number;
  status: RunStatus;
}

/** One line of listRuns(). */
export interface RunSummary {
  id: number;
  kind: ProfileRun['kind'];
  startedAt: string;
  finishedAt: string | null;
  status: RunStatus;
  /** The dataset's path, or the exec plan's file; null when the run names none. */
  datasetPath: string | null;
  hostname: string;
  points: number;
  /** The answer's best images/s (the trained-with engine's best point); older runs: the best over the points, an exec run's images/s; null when unknown. */
  bestImagesPerSec: number | null;
  /**
   * The recorded dataset's fields: what its rate counts (a video dataset's samples are clips).
   * null when the run recorded no dataset; absent from hosts before it existed.
   */
  datasetSchema?: DatasetInfo['schema'] | null;
  verdictKind: VerdictKind | null;
  /** A failed run's reason (RunFailure.message); null otherwise. */
  failure: string | null;
}

export interface BuildRecord {
  id: number;
  datasetId: number | null;
  datasetPath: string | null;
  config: Record<string, unknown>;
  report: BuildReport;
  createdAt: string;
}

/** How B's throughput compares with A's. */
export interface Change {
  /**
   * 'same' within the noise (the larger of ±SAME_BAND and the points' own spread); null when
   * either measured 0 images/s, or when there was nothing with matching settings to compare.
   */
  direction: 'faster' | 'slower' | 'same' | null;
  /** How many times faster or slower (≥ 1): b÷a when faster, a÷b when slower. */
  factor: number | null;
  /** "B is 3.26× slower than A", "B is 1.50× faster than A", "B is about as fast as A (1.02×, within the noise ±5%)". */
  text: string;
  /** The band within which the two count as the same (a fraction: 0.05 = ±5%); absent where nothing was compared. */
  noise?: number;
}

export interface CompareRow extends Change {
  config: PointConfig;
  a: { index: number; imagesPerSec: number };
  b: { index: number; imagesPerSec: number };
  /** b ÷ a images/s (null when a measured 0). Above 1: B is faster. */
  ratio: number | null;
}

export interface RunComparison {
  a: RunSummary;
  b: RunSummary;
  /** Points whose config (workers, batch size, order, cache) both runs measured, in A's order. */
  rows: CompareRow[];
  onlyInA: PointConfig[];
  onlyInB: PointConfig[];
  verdicts: { a: Verdict | null; b: Verdict | null };
  /**
   * B's best point against A's best point, only when both bests were measured with the same
   * settings (engine, workers, batch size, order, cache); otherwise direction null and the
   * text says why they are not compared (a best at another batch size is another question).
   */
  best: Change;
  /**
   * The comparison's headline, over the matched points only: how many B measured faster,
   * slower and within the noise ("B is faster at 3 of 4 matching points (1.05–1.20×), slower
   * at 1 (1.13×); noise ±6%"). direction: the one every point outside the noise agrees on,
   * 'same' when all are within it, null when they disagree or none matched.
   */
  headline: Change & { matched: number; faster: number; slower: number; same: number };
  sameMachine: boolean;
  /**
   * By content (DatasetInfo.contentSha256), not path: null when either run recorded none
   * (runs before migration 002, command runs without a .beton file).
   */
  sameDataset: boolean | null;
  /** sameDataset in words, with why (the path rebuilt, the hash, what is missing). */
  datasetNote: string;
}
