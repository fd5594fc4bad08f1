import { constants } from 'node:os';
import { InterruptedError } from '../format/errors.js';

/** The signals that end a command cleanly: Ctrl-C, `kill` / a scheduler's stop, a closed terminal. */
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** How long the command gets to stop by itself (abort, remove its temporary file) after a signal. */
const GRACE_MS = 10_000;

export interface SignalGuard {
  readonly signal: AbortSignal;
  /** Removes the handlers (the command is done: a later signal gets Node's default). */
  dispose(): void;
}

/**
 * Turns SIGINT/SIGTERM/SIGHUP into an abort of `what` (the InterruptedError reason names
 * the signal and the `outcome`), so the work stops through its normal failure path — a writer removes its
 * temporary file — and the CLI exits with 128 + the signal's number. If the work has not
 * stopped GRACE_MS later, or a second signal comes, `cleanupSync` runs and the process
 * exits at once: a stuck source must not make the signal useless.
 */
export function abortOnSignals(opts: { what: string; outcome: string; cleanupSync?: () => void }): SignalGuard {
  const { what, outcome, cleanupSync = () => undefined } = opts;
  const ac = new AbortController();
  const exitNow = (sig: NodeJS.Signals): never => {
    try {
      cleanupSync();
    } finally {
      process.stderr.write(`beton: ${what} stopped by ${sig}\n`);
    }
    process.exit(128 + (constants.signals[sig] ?? 0));
  };
  const handler = (sig: NodeJS.Signals): void => {
    if (ac.signal.aborted) exitNow(sig);
    const how = sig === 'SIGINT' ? 'was interrupted (Ctrl-C)' : `was stopped by ${sig}`;
    ac.abort(new InterruptedError(sig, `${what} ${how}; ${outcome}`));
    // unref: the timer must not keep a process alive that finished stopping by itself.
    setTimeout(() => exitNow(sig), GRACE_MS).unref();
  };
  for (const s of SIGNALS) process.on(s, handler);
  return {
    signal: ac.signal,
    dispose: () => {
      for (const s of SIGNALS) process.off(s, handler);
    },
  };
}
