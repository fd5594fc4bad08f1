/**
 * What a finished job carries in `jobs:finished`'s `result`, per job kind: a build's report,
 * a profile's outcome, a check's DatasetCheck. core/app produces them (core/app/profile-run.ts), so the renderer's
 * view of them is checked against the code that makes them.
 */
import type { BuildReport } from './build-report.js';
import type { DatasetCheck } from './dataset-check.js';
import type { ProfileAnswer } from './profile-answer.js';
import type { PointResult, Verdict } from './profile-model.js';

/** A sweep that ran to its end: the run it recorded, its verdict and points. */
export interface SweepOutcome {
  runId: number;
  verdict: Verdict | null;
  points: PointResult[];
  /** The run's answer, as stored with it (absent from older servers). */
  answer?: ProfileAnswer | null;
}

/** A training command (`exec`) that ran: the run it recorded and how it ended. */
export interface ExecOutcome {
  runId: number;
  exitCode: number | null;
  /** The signal that ended it (a NodeJS signal name), or null. */
  signal: string | null;
  /** Images the command reported (0 when it reported none). */
  imagesTotal: number;
  seconds: number;
  /** The command's last lines of stderr (shown when it failed). */
  stderrTail: string[];
  /** Why the run failed ("the command exited with code 127 (command not found)"), null when it did not. */
  failure: string | null;
  /** The run's verdict (input-/compute-bound with the probe; absent from older servers). */
  verdict?: Verdict | null;
  /** The run's answer, as stored with it (absent from older servers). */
  answer?: ProfileAnswer | null;
}

/** Told apart on the wire by their keys: an exec outcome has `exitCode`. */
export type ProfileOutcome = SweepOutcome | ExecOutcome;

export interface JobResults {
  build: BuildReport;
  profile: ProfileOutcome;
  check: DatasetCheck;
}
