// Issue 19 item 3: one spawn gate. Every request that names a program the server would run
// (a training command, a build's own ffmpeg, in any route) is refused by a real `beton serve`
// started without --allow-exec, and the program never runs.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Requests } from '../../core/api/contract.js';
import { programsNamed } from '../../core/services/spawn-gate.js';

const ROOT = resolve(__dirname, '../..');
const base = mkdtempSync(join(tmpdir(), 'beton-gate-'));
const served = join(base, 'served');
const marker = join(base, 'ran');
const evil = join(served, 'evil.sh');
let child: ChildProcess;
let origin = '';
let token = '';

beforeAll(async () => {
  mkdirSync(served);
  writeFileSync(evil, `#!/bin/sh\ntouch ${marker}\necho 'ffmpeg version 6'\n`);
  chmodSync(evil, 0o755);
  writeFileSync(join(served, 'v.csv'), 'path,label\nv.mp4,0\n');
  writeFileSync(join(served, 'v.mp4'), 'not a video');
  child = spawn(process.execPath, [join(ROOT, 'bin/beton.js'), 'serve', served, '--port', '0', '--db', join(base, 'runs.sqlite')], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  const end = Date.now() + 60_000;
  while (!/open (http\S+)/.test(out)) {
    if (Date.now() > end || child.exitCode !== null) throw new Error(`beton serve did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const url = new URL(/open (http\S+)/.exec(out)![1]!);
  origin = url.origin;
  token = url.searchParams.get('token')!;
}, 90_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    if (child.exitCode === null) child.kill('SIGKILL');
  }
  rmSync(base, { recursive: true, force: true });
});

async function call(method: string, params: unknown): Promise<{ status: number; code?: string; message?: string }> {
  const res = await fetch(`${origin}/api/${method}`, { method: 'POST', headers: { 'X-Beton-Token': token }, body: JSON.stringify(params) });
  const body = (await res.json()) as { ok: boolean; error?: { code: string; message: string } };
  return { status: res.status, code: body.error?.code, message: body.error?.message };
}

const videoSource = { type: 'video_list', path: join(served, 'v.csv'), clipLength: 2, ffmpeg: evil };
const hostile: Array<[string, unknown]> = [
  ['builds.advise', { config: { source: videoSource, output: join(served, 'o.beton') }, sample: 1 }],
  ['builds.start', { config: { source: videoSource, output: join(served, 'o.beton') } }],
  ['profiles.start', { exec: { command: `touch ${marker}` } }],
  ['export.generate', { build: { source: videoSource, output: join(served, 'o.beton') } }],
];

describe('beton serve without --allow-exec', () => {
  for (const [method, params] of hostile) {
    it(`${method} naming a program answers 403 EXEC_DISABLED and runs nothing`, async () => {
      const r = await call(method, params);
      expect(r.status, JSON.stringify(r)).toBe(403);
      expect(r.code).toBe('EXEC_DISABLED');
      expect(r.message).toContain('--allow-exec');
      await new Promise((res) => setTimeout(res, 300));
      expect(existsSync(marker)).toBe(false);
    }, 30_000);
  }
});

describe('the gate looks at every request', () => {
  it('finds program-naming keys at any depth, in every method of the contract', () => {
    expect(programsNamed({ config: { source: { ffmpeg: '/bin/sh' } } })).toEqual(['config.source.ffmpeg']);
    expect(programsNamed({ exec: { command: 'x' } })).toEqual(['exec']);
    expect(programsNamed({ config: { source: { path: 'a.csv' } } })).toEqual([]);
    // Each method's schema: a request that names no program passes the gate untouched (no false alarms).
    for (const m of Object.keys(Requests)) expect(programsNamed({}), m).toEqual([]);
  });
});
