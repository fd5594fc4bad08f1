/**
 * Running the `beton` CLI inside the test process (core/cli/main.ts), for tests that check
 * what it prints without paying a Node start per command (cli.ts spawns bin/beton.js).
 * Output is captured by spying on process.stdout/stderr for the call's duration.
 */
import { resolve } from 'node:path';
import { vi } from 'vitest';
import { main } from '../../core/cli/main.js';
import type { CliResult } from './cli.js';

/** The repository's sample JPEGs (48 images in class folders). */
export const SAMPLE_IMAGES = resolve(import.meta.dirname, '../../assets/sample-images');

export interface InProcessResult {
  code: number;
  out: string;
  err: string;
}

/**
 * A warning Node prints for the whole process ("(node:123) MaxListenersExceededWarning: …" and
 * its "(Use `node --trace-warnings …`)" line), once per process and kind: in a test process
 * shared by many files it lands in whichever command runs at the time (here, the AWS SDK's
 * keep-alive sockets gathering listeners over hundreds of earlier requests, smithy-typescript
 * #1530). Not the command's output: a spawned command (cli.ts) still shows its own warnings.
 */
const PROCESS_WARNING = /^\(node:\d+\) \w*Warning: [^\n]*\n(?:\(Use `node --trace-warnings[^\n]*\n)?/gm;

/** Runs `beton ...argv` in-process; returns the exit code and what it printed. */
export async function cliInProcess(...argv: string[]): Promise<InProcessResult> {
  let out = '';
  let err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((c) => ((out += String(c)), true));
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((c) => ((err += String(c)), true));
  try {
    const code = await main(argv);
    return { code, out, err: err.replace(PROCESS_WARNING, '') };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

/** `beton ...argv` in-process, as the CliResult a spawned run gives (cli.ts): one shape for both. */
export async function cliHere(argv: readonly string[]): Promise<CliResult> {
  const t0 = performance.now();
  const r = await cliInProcess(...argv);
  return { status: r.code, signal: null, stdout: r.out, stderr: r.err, ms: performance.now() - t0 };
}
