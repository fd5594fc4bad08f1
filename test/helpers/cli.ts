/**
 * Running the `beton` CLI from tests: one helper for every test file (there were eleven
 * copies). `cli(args, opts)` runs it to the end; `cliIn(dir)` gives a variadic runner bound
 * to a folder (and environment); `cliOk` returns stdout of a command that must succeed.
 * BETON_DEBUG is cleared so stack traces never leak into what a test reads.
 */
import { spawn, spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

export const ROOT = resolve(__dirname, '../..');
export const CLI = resolve(ROOT, 'bin/beton.js');

export interface CliResult {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export interface CliOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Killed after this long (default 5 minutes: builds on a loaded machine). */
  timeoutMs?: number;
}

/** Runs `beton ARGS` to the end (killed after timeoutMs). */
export function cli(args: readonly string[], opts: CliOptions = {}): CliResult {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    cwd: opts.cwd,
    env: { ...process.env, BETON_DEBUG: '', ...opts.env },
    timeout: opts.timeoutMs ?? 300_000,
    maxBuffer: 64 << 20,
  });
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr, ms: performance.now() - t0 };
}

/** `cli('build', …)` run in `cwd` (with `env` as the whole environment when given). */
export const cliIn =
  (cwd?: string, env?: NodeJS.ProcessEnv) =>
  (...args: string[]): CliResult =>
    cli(args, { ...(cwd !== undefined ? { cwd } : {}), ...(env !== undefined ? { env } : {}) });

/** stdout of `beton ARGS`, which must exit 0 (else the error names the command and its stderr). */
export function cliOk(args: readonly string[], opts: CliOptions = {}): string {
  const r = cli(args, opts);
  if (r.status !== 0) throw new Error(`beton ${args.join(' ')} exited ${r.status}:\n${r.stderr}`);
  return r.stdout;
}

/** Runs `beton ARGS` without blocking the test process (which may hold a port the command needs). */
export function cliAsync(
  args: readonly string[],
  opts: { timeoutMs?: number; env?: NodeJS.ProcessEnv; asNobody?: boolean } = {},
): Promise<CliResult> {
  const t0 = performance.now();
  // asNobody: as root, permissions do not stop root (CAP_DAC_OVERRIDE), so a permission test
  // runs the CLI as root *without capabilities* (setpriv, util-linux): file modes then apply to
  // it as to any user, while the checkout stays readable wherever it was cloned (a real user
  // such as nobody may not reach a checkout under a private folder). Others run as themselves.
  const drop = opts.asNobody && process.getuid?.() === 0;
  const argv = [CLI, ...args];
  return new Promise((done) => {
    const child = drop
      ? spawn('setpriv', [...DROP_CAPS, process.execPath, ...argv], {
          env: { ...process.env, BETON_DEBUG: '', ...opts.env },
        })
      : spawn(process.execPath, argv, { env: { ...process.env, BETON_DEBUG: '', ...opts.env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30_000);
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      done({ status, signal, stdout, stderr, ms: performance.now() - t0 });
    });
  });
}

/** setpriv's arguments for a root without capabilities: permission bits stop it. */
const DROP_CAPS = ['--inh-caps=-all', '--bounding-set=-all'];

/**
 * Whether permission tests can run here: not root, or root able to drop its capabilities
 * (setpriv) so that a file of mode 000 really is unreadable to it — checked, not assumed.
 */
export function canTestPermissions(): boolean {
  if (process.getuid?.() !== 0) return true;
  const probe = 'f=$(mktemp) && chmod 000 "$f" && { cat "$f" 2>/dev/null; r=$?; rm -f "$f"; test $r -ne 0; }';
  return spawnSync('setpriv', [...DROP_CAPS, 'sh', '-c', probe]).status === 0;
}
