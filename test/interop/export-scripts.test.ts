// Issue 30, under the real FFCV: what `beton export` writes for a newcomer's first hour.
// - An exported build script builds only when run (importing it built, and rewrote the
//   user's .beton), and a second run keeps the file unless given --overwrite.
// - The loader for a 200-sample file yields a batch (batch 256 with drop_last yielded none).
// - The loader of a real `beton profile` run carries the profiled flip and names its run.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { IntField } from '../../core/fields/int-field.js';
import { RGBImageField } from '../../core/fields/rgb-image-field.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';
import { cli, cliOk, ROOT } from '../helpers/cli.js';
import { describeFfcv, PYTHON } from './ffcv.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-export-first-hour-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const python = (args: string[]) =>
  spawnSync('timeout', ['-k', '5', '300', PYTHON, ...args], { cwd: dir, encoding: 'utf8', maxBuffer: 16 << 20 });

/** Batches the exported module's `loader` yields in one epoch (imported, so its __main__ loop does not run). */
function batchesOf(module: string): number {
  const r = python(['-c', `import ${module}\nprint("batches", sum(1 for _ in ${module}.loader))`]);
  expect(r.status, r.stderr.slice(-3000)).toBe(0);
  return Number(/^batches (\d+)$/m.exec(r.stdout)?.[1]);
}

describeFfcv('beton export, run by FFCV (issue 30)', () => {
  it('the build script builds when run, not when imported; a second run keeps the file unless --overwrite', () => {
    cpSync(join(ROOT, 'assets/sample-images'), join(dir, 'photos'), { recursive: true });
    writeFileSync(join(dir, 'build.json'), JSON.stringify({ source: { type: 'image_folder', path: 'photos' }, output: 'photos.beton' }));
    cliOk(['export', '--build', join(dir, 'build.json'), '-o', join(dir, 'build_photos.py')]);
    const out = join(dir, 'photos.beton');

    const imported = python(['-c', 'import build_photos']);
    expect(imported.status, imported.stderr.slice(-2000)).toBe(0);
    expect(existsSync(out)).toBe(false);

    const first = python(['build_photos.py']);
    expect(first.status, first.stderr.slice(-2000)).toBe(0);
    expect(cliOk(['inspect', out])).toMatch(/48 samples/);
    const written = statSync(out, { bigint: true }).mtimeNs;
    const bytes = readFileSync(out);

    const again = python(['build_photos.py']);
    expect(again.status, again.stderr.slice(-2000)).toBe(0);
    expect(again.stderr).toMatch(/photos\.beton exists: kept it; pass --overwrite to build it again/);
    expect(statSync(out, { bigint: true }).mtimeNs).toBe(written);
    expect(readFileSync(out).equals(bytes)).toBe(true);

    const over = python(['build_photos.py', '--overwrite']);
    expect(over.status, over.stderr.slice(-2000)).toBe(0);
    expect(statSync(out, { bigint: true }).mtimeNs).not.toBe(written);
  }, 600_000);

  it('the loader for a 200-sample file yields a batch (the default batch is capped, as in beton profile)', async () => {
    const small = join(dir, 'small.beton');
    const pixels = new Uint8Array(24 * 16 * 3).fill(90);
    await new DatasetWriter(small, { image: new RGBImageField({ writeMode: 'raw' }), label: new IntField() }, { numWorkers: 0 }).write(
      Array.from({ length: 200 }, (_, i) => ({ image: { width: 24, height: 16, data: pixels }, label: i % 3 })),
    );
    cliOk(['export', small, '--workers', '1', '-o', join(dir, 'load_small.py')]);
    expect(batchesOf('load_small')).toBe(1);
  }, 600_000);

  it('the loader of a real profile run carries its flip and point, names them, and yields batches', () => {
    const beton = join(dir, 'photos.beton');
    if (!existsSync(beton)) cliOk(['build', join(dir, 'photos'), '-o', beton]);
    const db = join(dir, 'runs.sqlite');
    const p = cli(['profile', beton, '--workers', '1', '--seconds', '1', '--no-gpu', '--db', db], { timeoutMs: 300_000 });
    expect(p.status, p.stderr).toBe(0);
    cliOk(['export', '--run', 'last', '--db', db, '-o', join(dir, 'load_run.py')]);
    const code = readFileSync(join(dir, 'load_run.py'), 'utf8');
    expect(code).toMatch(
      /^# From profile run 1, point #1 of 1 \(the fastest\): beton engine, 1 worker, batch 48, random, os cache, rrc:160 \+ flip: \d+ img\/s/m,
    );
    expect(code).toContain('RandomHorizontalFlip(flip_prob=0.5)');
    expect(batchesOf('load_run')).toBe(1);
  }, 600_000);
});
