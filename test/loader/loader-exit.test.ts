// A Node process that iterates a loader and does nothing else exits by itself: idle worker
// threads must not hold the event loop (as with FFCV or PyTorch's DataLoader, no close()).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IntField } from '../../core/fields/int-field.js';
import { Loader } from '../../core/loader/loader.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';
import { requires } from '../helpers/requires.js';

const ROOT = resolve(__dirname, '../..');
const LIB = join(ROOT, 'dist/core/index.js');
const dir = mkdtempSync(join(tmpdir(), 'beton-exit-'));
const file = join(dir, 'ints.beton');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(async () => {
  const rows = Array.from({ length: 500 }, (_, i) => ({ x: BigInt(i) }));
  await new DatasetWriter(file, { x: new IntField() }, { numWorkers: 0 }).write(rows);
});

/** Runs `body` (an ES module's top level with `Loader` and `file` in scope); resolves how long the process lived after printing "last". */
function exitDelay(body: string): Promise<{ code: number | null; afterLastMs: number; out: string }> {
  const script = join(dir, `child-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(
    script,
    `import { Loader } from ${JSON.stringify(LIB)};\nconst file = ${JSON.stringify(file)};\n${body}\nconsole.log('last');\n`,
  );
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let lastAt = 0;
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (!lastAt && out.includes('last')) lastAt = performance.now();
    });
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    // Today's bug is a process that never exits: give up (and fail) after 10 s.
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.on('error', fail);
    child.on('exit', (code) => {
      clearTimeout(timer);
      done({ code, afterLastMs: lastAt ? performance.now() - lastAt : Infinity, out });
    });
  });
}

describe.skipIf(!requires('a built dist/', 'npm run build:ts', existsSync(LIB)))('a loader does not keep Node alive', () => {
  it('exits within a second of the last batch of one epoch, without close()', async () => {
    const r = await exitDelay(`
      const loader = await Loader.open(file, { batchSize: 64, numWorkers: 2, order: 'random', seed: 1 });
      let n = 0;
      for await (const b of loader) n += b.size;
      console.log('samples', n);`);
    expect(r.out).toContain('samples 448');
    expect(r.code, r.out).toBe(0);
    expect(r.afterLastMs).toBeLessThan(1000);
  });

  it('runs a second epoch on the same workers, and exits after it; also after a break mid-epoch', async () => {
    const r = await exitDelay(`
      const loader = await Loader.open(file, { batchSize: 50, numWorkers: 2, dropLast: false });
      const sums = [];
      for (let e = 0; e < 2; e++) { let s = 0n; for await (const b of loader) for (const v of b.get('x').data) s += v; sums.push(String(s)); }
      for await (const b of loader) break;
      console.log('sums', sums.join(','));`);
    expect(r.out).toContain('sums 124750,124750');
    expect(r.code, r.out).toBe(0);
    expect(r.afterLastMs).toBeLessThan(1000);
  });
});

describe('close()', () => {
  it('is idempotent, also when called twice at once and after the epoch', async () => {
    const loader = await Loader.open(file, { batchSize: 100, numWorkers: 1 });
    let n = 0;
    for await (const b of loader) n += b.size;
    expect(n).toBe(500);
    await Promise.all([loader.close(), loader.close()]);
    await loader.close();
    await expect(async () => {
      for await (const _ of loader) void _;
    }).rejects.toThrow(/closed/);
  });
});
