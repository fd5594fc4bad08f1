// Issue 19 item 3: one spawn gate. Every request that names a program the server would run
// (a training command, a build's own ffmpeg, in any route) is refused by a real `beton serve`
// started without --allow-exec, and the program never runs.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Requests } from '../../core/api/contract.js';
import { programsNamed } from '../../core/services/spawn-gate.js';
import { startServe, type ServeChild } from '../helpers/serve-child.js';

const base = mkdtempSync(join(tmpdir(), 'beton-gate-'));
const served = join(base, 'served');
const marker = join(base, 'ran');
const evil = join(served, 'evil.sh');
let serve: ServeChild;

beforeAll(async () => {
  mkdirSync(served);
  writeFileSync(evil, `#!/bin/sh\ntouch ${marker}\necho 'ffmpeg version 6'\n`);
  chmodSync(evil, 0o755);
  writeFileSync(join(served, 'v.csv'), 'path,label\nv.mp4,0\n');
  writeFileSync(join(served, 'v.mp4'), 'not a video');
  serve = await startServe(served, join(base, 'runs.sqlite'));
}, 90_000);

afterAll(async () => {
  await serve?.stop();
  rmSync(base, { recursive: true, force: true });
});

const call = (method: string, params: unknown): ReturnType<ServeChild['call']> => serve.call(method, params);

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
