import type { JobResults } from './job-results.js';
import type { TelemetrySample } from './profile-model.js';

/**
 * The contract's events (contract.ts has the requests): what a host pushes to the app while
 * jobs run, over IPC or server-sent events. Long jobs stream `jobs:progress` (≤ 10/s) and
 * `jobs:sample`, and always end with one `jobs:finished`.
 */

export type JobKind = 'build' | 'profile' | 'check';

export interface ProgressEvent {
  jobId: string;
  kind: JobKind;
  done: number;
  total: number | null;
  rate: number;
  etaMs: number | null;
  message?: string;
  /**
   * ms since the job's work started, on the host's clock: lets the app measure rates over
   * a window of its own (events reach it late and in bursts). Builds send it.
   */
  elapsedMs?: number;
  /**
   * A build's samples/s over its last second, by the writer's clock (core/writer/rate-window.ts;
   * `rate` is the average since the start): what the app shows and charts. Null until the
   * writer's reports span a quarter second. Builds send it.
   */
  recentRate?: number | null;
}
export interface SampleEvent {
  jobId: string;
  /** A profile job's telemetry, for live charts. */
  sample: TelemetrySample;
}
interface FinishedFields {
  jobId: string;
  status: 'ok' | 'cancelled' | 'failed';
  message?: string;
  /** A failed job's error code (as ApiError.code: OUTPUT_EXISTS, CORRUPT_SAMPLE, ENOSPC, …). */
  code?: string;
}
/** A job's end; `result` by its kind (a build's report, a profile's outcome), absent when the work threw. */
export type FinishedEventOf<K extends JobKind> = FinishedFields & { kind: K; result?: JobResults[K] };
export type FinishedEvent = { [K in JobKind]: FinishedEventOf<K> }[JobKind];
export interface Events {
  'jobs:progress': ProgressEvent;
  'jobs:sample': SampleEvent;
  'jobs:finished': FinishedEvent;
  'runs:changed': Record<string, never>;
}
export type EventName = keyof Events;
export const EVENT_NAMES: EventName[] = ['jobs:progress', 'jobs:sample', 'jobs:finished', 'runs:changed'];
export type ApiEvent = { [K in EventName]: { event: K; data: Events[K] } }[EventName];
