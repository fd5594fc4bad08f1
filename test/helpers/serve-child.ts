// A real `beton serve` in a child process (dist/ via bin/beton.js), for tests that must see
// what a client sees, and that must be able to kill a server that hangs.
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');

export interface ServeChild {
  child: ChildProcess;
  origin: string;
  token: string;
  /** POST /api/<method>; aborted after timeoutMs (a hung server fails the test, it does not block it). */
  call(method: string, params: unknown, timeoutMs?: number): Promise<{ status: number; code?: string; message?: string }>;
  stop(): Promise<void>;
}

export async function startServe(served: string, db: string, extra: readonly string[] = []): Promise<ServeChild> {
  const child = spawn(process.execPath, [join(ROOT, 'bin/beton.js'), 'serve', served, '--port', '0', '--db', db, ...extra], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  const end = Date.now() + 60_000;
  while (!/open (http\S+)/.test(out)) {
    if (Date.now() > end || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error(`beton serve did not start: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const url = new URL(/open (http\S+)/.exec(out)![1]!);
  const origin = url.origin;
  const token = url.searchParams.get('token')!;
  return {
    child,
    origin,
    token,
    async call(method, params, timeoutMs = 15_000) {
      const res = await fetch(`${origin}/api/${method}`, {
        method: 'POST',
        headers: { 'X-Beton-Token': token },
        body: JSON.stringify(params),
        signal: AbortSignal.timeout(timeoutMs),
      });
      const body = (await res.json()) as { ok: boolean; error?: { code: string; message: string } };
      return { status: res.status, code: body.error?.code, message: body.error?.message };
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
