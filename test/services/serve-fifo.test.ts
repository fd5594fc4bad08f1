// Issue 19 item 9, the server side: a named pipe in the served folder is answered at once
// (NOT_A_FILE, 400) by datasets.inspect, datasets.preview, sources.detect and
// sources.categories, and five of them in parallel leave the server answering: nothing
// blocks the event loop or the thread pool. Against a real `beton serve`, killed at the end.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeChild } from '../helpers/serve-child.js';

const base = mkdtempSync(join(tmpdir(), 'beton-sfifo-'));
const served = join(base, 'served');
let serve: ServeChild;

beforeAll(async () => {
  mkdirSync(served);
  for (const f of ['d.beton', 't.csv', 't.parquet', 't.jsonl']) execFileSync('mkfifo', [join(served, f)]);
  serve = await startServe(served, join(base, 'runs.sqlite'));
}, 90_000);

afterAll(async () => {
  await serve?.stop();
  rmSync(base, { recursive: true, force: true });
});

describe('beton serve and named pipes', () => {
  it.each([
    ['datasets.inspect', { path: 'd.beton' }],
    ['datasets.preview', { path: 'd.beton' }],
    ['sources.detect', { path: 't.csv' }],
    ['sources.detect', { path: 't.parquet' }],
    ['sources.categories', { path: 't.jsonl', column: 'a' }],
  ])(
    '%s %j: NOT_A_FILE at once',
    async (method, params) => {
      const r = await serve.call(method, params);
      expect(r.status, JSON.stringify(r)).toBe(400);
      expect(r.code).toBe('NOT_A_FILE');
      expect(r.message).toMatch(/named pipe \(FIFO\), not a regular file/);
    },
    30_000,
  );

  it('five sources.detect at once, then the server still answers', async () => {
    const all = await Promise.all(Array.from({ length: 5 }, () => serve.call('sources.detect', { path: 't.csv' })));
    expect(all.map((r) => r.code)).toEqual(Array(5).fill('NOT_A_FILE'));
    const info = await serve.call('env.info', {});
    expect(info.status).toBe(200);
  }, 30_000);
});
