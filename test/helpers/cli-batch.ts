/**
 * Several `beton` commands run one after another in ONE child process: the compiled CLI's
 * main() (dist/, what bin/beton.js runs), each command's output captured apart. For a list
 * of commands that must each end with a message, where a Node start per command is most of
 * the cost, yet none may run in the test process (a command that hangs in a blocking read
 * there would stop the test process itself; here the child is killed after `timeoutMs` and
 * the batch fails).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { CliResult } from './cli.js';
import { ROOT } from './cli.js';

const MAIN = resolve(ROOT, 'dist/core/cli/main.js');

// The child (a module file: `node -e` flags would reach the build's worker threads): swaps process.stdout/stderr.write for each command, then prints every result as
// one JSON line on the real stdout.
const CHILD = `
const { main } = await import(process.env.BETON_BATCH_MAIN);
const cases = JSON.parse(process.env.BETON_BATCH);
const real = process.stdout.write.bind(process.stdout);
const realErr = process.stderr.write.bind(process.stderr);
const results = [];
for (const argv of cases) {
  const t0 = performance.now();
  const text = { out: '', err: '' };
  const into = (k) => (chunk, ...rest) => {
    text[k] += String(chunk);
    const done = rest.find((r) => typeof r === 'function');
    if (done) done();
    return true;
  };
  process.stdout.write = into('out');
  process.stderr.write = into('err');
  let status = null;
  try {
    status = await main(argv);
  } catch (e) {
    text.err += 'main threw: ' + String(e && e.stack ? e.stack : e);
  }
  process.stdout.write = real;
  process.stderr.write = realErr;
  results.push({ status, signal: null, stdout: text.out, stderr: text.err, ms: performance.now() - t0 });
}
real(JSON.stringify(results) + '\\n', () => process.exit(0));
`;

/** Runs `beton ARGV` for each argv in one child; its results in order, or throws (hung, crashed). */
export function cliBatch(argvs: readonly (readonly string[])[], opts: { timeoutMs?: number } = {}): Promise<CliResult[]> {
  return new Promise((done, fail) => {
    const scratch = mkdtempSync(join(tmpdir(), 'beton-cli-batch-'));
    writeFileSync(join(scratch, 'batch.mjs'), CHILD);
    const child = spawn(process.execPath, [join(scratch, 'batch.mjs')], {
      env: { ...process.env, BETON_DEBUG: '', BETON_BATCH_MAIN: MAIN, BETON_BATCH: JSON.stringify(argvs) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      rmSync(scratch, { recursive: true, force: true });
      if (status !== 0) return fail(new Error(`the batch of ${argvs.length} commands ended with ${status ?? signal} (hung?):\n${stderr}`));
      done(JSON.parse(stdout) as CliResult[]);
    });
  });
}
