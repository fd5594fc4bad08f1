/**
 * The profiler's answer (issue 27): what a run says, computed once in core (one pure function
 * over a run) and stored with it, then shown unchanged by `beton profile --json`,
 * `beton runs show --json`, the service's run record and the app. Its keys are snake_case
 * because they are the JSON the issue fixed for every surface; TypeScript reads them as is.
 * Plain data, part of the contract: the renderer imports these types.
 */
import type { EngineName } from './engine-name.js';

/** What limits the run, one word (the list, in this order of precedence for ties). */
export const BOTTLENECKS = [
  'contention',
  'decode',
  'storage',
  'network',
  'parallelism',
  'input',
  'compute',
  'gpu',
  'balanced',
  'unknown',
] as const;
export type Bottleneck = (typeof BOTTLENECKS)[number];

/**
 * What a front end can carry out. `resweep`: run the sweep again with `params` (plan fields:
 * workers, batchSizes, orders, osCache, engines, …); `rebuild`: build the dataset again with
 * `params` (build options: writeMode, maxResolution, jpegQuality, pageSize, …); `export`: export
 * FFCV code for the point in `params`; `switch-engine`: train with `params.engine`;
 * `reprofile-idle`: measure again once the machine is quiet; `profile-loader`: sweep the loader
 * itself (exec runs); `exec-sweep`: sweep the training command over `params.workers`;
 * `run-command`: train with `params.command` (a training-command sweep's point that keeps up).
 * The CLI prints each as a `beton …` command (core/profile/verdict/action-command.ts, from id + params).
 */
export const ACTION_IDS = [
  'resweep',
  'rebuild',
  'export',
  'switch-engine',
  'reprofile-idle',
  'profile-loader',
  'exec-sweep',
  'run-command',
] as const;
export type ActionId = (typeof ACTION_IDS)[number];

export type ActionParams = Record<string, string | number | boolean | string[] | number[] | boolean[] | null>;

export interface AnswerAction {
  id: ActionId;
  /** Words for people (the app's button; the CLI prints the command made from id + params). */
  label: string;
  params: ActionParams;
}

export interface EngineBest {
  /** The engine's best images/s over its points (null: it measured none). */
  best_images_per_sec: number | null;
  /** best ÷ the trained-with engine's best (null when either is unknown). */
  vs_trained_with: number | null;
}

export interface ProfileAnswer {
  /** The engine the user trains with: FFCV when measured, else torch, else ours, or the user's choice. */
  engine: EngineName | 'exec';
  /**
   * The trained-with engine's best point: its PointResult.index (the grid index, pointsOf(plan)[i];
   * the same as its position in run.points when every point was measured), and its images/s.
   * Exec runs: point null, the command's images/s. Nulls when nothing was measured.
   */
  best: { point: number | null; images_per_sec: number | null };
  bottleneck: Bottleneck;
  /** Other processes held more than ~20% of the CPUs while measuring. */
  contended: boolean;
  /** Spread of the best point's slices ((max − min) / median); null when unknown. */
  noise: number | null;
  summary: string;
  evidence: string[];
  /** Ranked: the first is what to do next. */
  actions: AnswerAction[];
  engines: Partial<Record<EngineName, EngineBest>>;
}
