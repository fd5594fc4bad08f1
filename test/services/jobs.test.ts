import { describe, expect, it } from 'vitest';
import type { ApiEvent, ExecOutcome, FinishedEvent, SweepOutcome } from '../../core/api/contract.js';
import { JobFailed, JobManager } from '../../core/services/jobs.js';

/** A JobManager whose events are collected; `finished()` resolves with the first jobs:finished. */
function manager(opts: { cancelGraceMs?: number; onEmit?: (e: ApiEvent) => void } = {}) {
  const events: ApiEvent[] = [];
  const jobs = new JobManager(
    (e) => {
      events.push(e);
      opts.onEmit?.(e);
    },
    opts.cancelGraceMs !== undefined ? { cancelGraceMs: opts.cancelGraceMs } : {},
  );
  const finishedEvents = (): FinishedEvent[] => events.filter((e) => e.event === 'jobs:finished').map((e) => e.data as FinishedEvent);
  const finished = async (timeoutMs = 2000): Promise<FinishedEvent> => {
    const end = Date.now() + timeoutMs;
    while (Date.now() < end) {
      const f = finishedEvents()[0];
      if (f) return f;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`no jobs:finished within ${timeoutMs} ms`);
  };
  return { jobs, events, finished, finishedEvents };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const sweep: SweepOutcome = { runId: 1, verdict: null, points: [] };
const exec127: ExecOutcome = {
  runId: 7,
  exitCode: 127,
  signal: null,
  imagesTotal: 0,
  seconds: 0.1,
  stderrTail: [],
  failure: 'the command exited with code 127 (command not found)',
};

describe('jobs: exactly one jobs:finished, whatever the work does', () => {
  it('work that ignores the cancel still ends as cancelled after the grace period (never "Cancelling…" for ever)', async () => {
    const m = manager({ cancelGraceMs: 100 });
    let release!: () => void;
    const id = m.jobs.start('profile', () => new Promise<SweepOutcome>((r) => (release = () => r(sweep)))); // never looks at its signal
    await sleep(20);
    expect(m.jobs.cancel(id)).toBe(true);
    const f = await m.finished(1500);
    expect(f).toMatchObject({ jobId: id, status: 'cancelled' });
    expect(f.message).toMatch(/had not stopped/);
    release(); // finishing late changes nothing
    await sleep(30);
    expect(m.finishedEvents()).toHaveLength(1);
    expect(m.jobs.cancel(id)).toBe(false);
  });

  it('work that throws once cancelled ends as cancelled, once', async () => {
    const m = manager();
    const id = m.jobs.start(
      'build',
      ({ signal }) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')))),
    );
    await sleep(10);
    m.jobs.cancel(id);
    expect(await m.finished()).toMatchObject({ status: 'cancelled' });
    await sleep(20);
    expect(m.finishedEvents()).toHaveLength(1);
  });

  it('a JobFailed outcome ends the job failed, with its code, message and result', async () => {
    const m = manager();
    m.jobs.start('profile', async () => new JobFailed('EXEC_FAILED', 'the command exited with code 127 (command not found)', exec127));
    expect(await m.finished()).toMatchObject({
      status: 'failed',
      code: 'EXEC_FAILED',
      message: 'the command exited with code 127 (command not found)',
      result: { runId: 7, exitCode: 127 },
    });
  });

  it('work that throws before returning a promise ends the job failed (no uncaught exception)', async () => {
    const m = manager();
    m.jobs.start('profile', (): Promise<SweepOutcome> => {
      throw new Error('boom');
    });
    expect(await m.finished()).toMatchObject({ status: 'failed', message: 'boom' });
  });

  it('a listener that throws cannot turn a finished job into a failed one or swallow jobs:finished', async () => {
    let thrown = 0;
    const m = manager({
      onEmit: (e) => {
        if (e.event === 'jobs:progress') {
          thrown++;
          throw new Error('the event stream closed');
        }
      },
    });
    m.jobs.start('profile', async ({ progress }) => {
      progress({ done: 1, total: 2, rate: 1, etaMs: null });
      return sweep;
    });
    expect(await m.finished()).toMatchObject({ status: 'ok', result: sweep });
    expect(thrown).toBe(1);
    await sleep(20);
    expect(m.finishedEvents()).toHaveLength(1);
  });
});

describe('jobs: running and whenIdle (a quitting host waits for cleanup here)', () => {
  it('counts jobs until their jobs:finished and wakes whenIdle once none runs', async () => {
    const { jobs } = manager();
    await expect(jobs.whenIdle(10)).resolves.toBe(true);
    let endA!: () => void;
    let endB!: () => void;
    jobs.start('build', () => new Promise<never>((_r, reject) => (endA = () => reject(new Error('a')))));
    jobs.start('profile', () => new Promise((r) => (endB = () => r(sweep))));
    expect(jobs.running).toBe(2);
    await expect(jobs.whenIdle(20)).resolves.toBe(false);
    const idle = jobs.whenIdle(5000);
    await sleep(5); // the work starts on the next tick
    endA();
    await sleep(5);
    expect(jobs.running).toBe(1);
    endB();
    await expect(idle).resolves.toBe(true);
    expect(jobs.running).toBe(0);
  });

  it('a cancel that the work ignores still ends in idle after the grace period', async () => {
    const { jobs } = manager({ cancelGraceMs: 30 });
    jobs.start('build', () => new Promise<never>(() => {}));
    jobs.cancelAll();
    await expect(jobs.whenIdle(2000)).resolves.toBe(true);
  });
});
