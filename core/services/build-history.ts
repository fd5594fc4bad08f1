/**
 * The builds a host ran since it started, newest first (`builds.list`): the page keeps its
 * state in memory, so without this a reload lost the build history and every report. Bounded:
 * a server up for weeks keeps the last MAX_BUILDS.
 */
import type { BuildHistoryEntry, FinishedEventOf } from '../api/contract.js';

export const MAX_BUILDS = 50;

export class BuildHistory {
  private readonly entries: BuildHistoryEntry[] = [];

  started(jobId: string, config: BuildHistoryEntry['config'], now = Date.now()): void {
    this.entries.unshift({ jobId, config, startedAt: now, finishedAt: null, status: 'running', report: null, message: null });
    this.entries.splice(MAX_BUILDS);
  }

  finish(e: FinishedEventOf<'build'>, now = Date.now()): void {
    // started() runs as builds.start answers, before the job's first await can end it.
    const entry = this.entries.find((x) => x.jobId === e.jobId);
    if (!entry) return;
    entry.finishedAt = now;
    entry.status = e.status;
    entry.report = e.result ?? null;
    entry.message = e.message ?? null;
  }

  list(): BuildHistoryEntry[] {
    return this.entries.map((e) => ({ ...e }));
  }
}
