// Issue 12 item 3: an output equal to an input must not destroy the input. `beton build`
// refuses, before any work, an output that is the source, lies in an image/video source
// folder, is listed by an image list, or is the --config file; and an existing file
// without --force. The app's builds.start refuses alike unless `overwrite` is set.
// The first refusal runs as a real `beton` process (exit 1, one line, no stack); the others
// call the CLI's main() in this process, builds with no encode workers.
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BetonService } from '../../core/services/beton-service.js';
import { SAMPLE_IMAGES, STACK_LINE } from '../helpers/cli-inputs.js';
import { cli } from '../helpers/cli.js';
import { cliHere } from '../helpers/cli-in-process.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-outguard-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const p = (...parts: string[]): string => join(dir, ...parts);
const bytes = (f: string): Buffer => readFileSync(f);
const noTemps = (folder: string): void => expect(readdirSync(folder).filter((f) => f.includes('.tmp-'))).toEqual([]);

beforeAll(() => {
  mkdirSync(p('imgs', 'a'), { recursive: true });
  mkdirSync(p('imgs', 'b'), { recursive: true });
  for (const [i, f] of ['circles_01.jpg', 'circles_02.jpg', 'circles_04.jpg'].entries())
    copyFileSync(join(SAMPLE_IMAGES, 'circles', f), p('imgs', i % 2 ? 'b' : 'a', f));
  writeFileSync(p('table.csv'), 'x,y\n1,2.5\n3,4.5\n');
  mkdirSync(p('list'));
  copyFileSync(join(SAMPLE_IMAGES, 'circles', 'circles_01.jpg'), p('list', 'one.jpg'));
  copyFileSync(join(SAMPLE_IMAGES, 'circles', 'circles_02.jpg'), p('list', 'two.jpg'));
  writeFileSync(p('list', 'images.csv'), 'image,label\none.jpg,0\ntwo.jpg,1\n');
});

describe('beton build refuses an output that is an input', () => {
  it('the source file itself: exit 1, OUTPUT_IS_INPUT, the file untouched (also through a link, and with --force)', async () => {
    const before = bytes(p('table.csv'));
    for (const [i, args] of [
      ['-o', p('table.csv')],
      ['-o', p('table.csv'), '--force'],
    ].entries()) {
      const argv = ['build', p('table.csv'), ...args];
      const r = i === 0 ? cli(argv) : await cliHere(argv);
      expect(r.status, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/error \[OUTPUT_IS_INPUT\]: the output .*table\.csv is the source file itself/);
      expect(r.stderr).not.toMatch(STACK_LINE);
    }
    symlinkSync(p('table.csv'), p('link.beton'));
    const viaLink = await cliHere(['build', p('table.csv'), '-o', p('link.beton'), '--force']);
    expect(viaLink.status, viaLink.stderr).toBe(1);
    expect(viaLink.stderr).toContain('[OUTPUT_IS_INPUT]');
    expect(bytes(p('table.csv'))).toEqual(before);
    noTemps(dir);
  });

  it('an image inside the source folder, or any path in it: refused, the image untouched', async () => {
    const img = p('imgs', 'a', 'circles_01.jpg');
    const before = bytes(img);
    for (const out of [img, p('imgs', 'a', 'new.beton'), p('imgs', 'out.beton')]) {
      const r = await cliHere(['build', p('imgs'), '-o', out, '--force', '--workers', '0']);
      expect(r.status, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/\[OUTPUT_IS_INPUT\]: .* is inside the source folder/);
    }
    expect(bytes(img)).toEqual(before);
    expect(readdirSync(p('imgs', 'a')).sort()).toEqual(['circles_01.jpg', 'circles_04.jpg']);
  });

  it('an image an image list names (an existing output, --force): refused, the image untouched', async () => {
    const before = bytes(p('list', 'two.jpg'));
    const r = await cliHere(['build', p('list', 'images.csv'), '-o', p('list', 'two.jpg'), '--force', '--workers', '0']);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/\[OUTPUT_IS_INPUT\]: .*two\.jpg is an image that .*images\.csv lists/);
    expect(bytes(p('list', 'two.jpg'))).toEqual(before);
    // Beside the list, a new name is fine.
    const ok = await cliHere(['build', p('list', 'images.csv'), '-o', p('list', 'out.beton'), '--workers', '0']);
    expect(ok.status, ok.stderr).toBe(0);
  });

  it('the --config file: refused', async () => {
    writeFileSync(p('build.json'), JSON.stringify({ source: { type: 'table', path: 'table.csv' }, output: 'build.json' }));
    const before = bytes(p('build.json'));
    const r = await cliHere(['build', '--config', p('build.json'), '--force']);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/\[OUTPUT_IS_INPUT\]: .* is the build config/);
    expect(bytes(p('build.json'))).toEqual(before);
  });

  it('is refused before any work: no temporary file, no encoder started, in well under a build', async () => {
    const r = await cliHere(['build', SAMPLE_IMAGES, '-o', join(SAMPLE_IMAGES, 'circles', 'circles_01.jpg'), '--force']);
    expect(r.status).toBe(1);
    expect(r.stderr).not.toMatch(/build: \d+/); // no progress line: no sample was read
    noTemps(join(SAMPLE_IMAGES, 'circles'));
  });
});

describe('beton build does not replace an existing file without --force', () => {
  it('exit 1 with OUTPUT_EXISTS and the file untouched; --force replaces it', async () => {
    const out = p('out.beton');
    expect((await cliHere(['build', p('table.csv'), '-o', out, '--workers', '0'])).status).toBe(0);
    writeFileSync(out, 'precious');
    const r = await cliHere(['build', p('table.csv'), '-o', out, '--workers', '0']);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/^beton build: error \[OUTPUT_EXISTS\]: .*out\.beton already exists; choose another output or pass --force/m);
    expect(readFileSync(out, 'utf8')).toBe('precious');
    const forced = await cliHere(['build', p('table.csv'), '-o', out, '--force', '--workers', '0']);
    expect(forced.status, forced.stderr).toBe(0);
    expect(statSync(out).size).toBeGreaterThan(100);
    expect((await cliHere(['inspect', out])).status).toBe(0);
  });

  it('an output that is a folder is refused with a file name to use', async () => {
    mkdirSync(p('afolder'));
    const r = await cliHere(['build', p('table.csv'), '-o', p('afolder'), '--force']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/is a folder; give a file name, e\.g\. .*afolder\/data\.beton/);
  });
});

describe('the app: builds.start carries overwrite', () => {
  it('refuses an existing output without overwrite (OUTPUT_EXISTS) and an input always (OUTPUT_IS_INPUT), before any job', async () => {
    const service = new BetonService({ roots: [dir], host: 'server', dbPath: p('runs.sqlite') });
    try {
      const out = p('app.beton');
      writeFileSync(out, 'precious');
      // No encode workers: the overwrite rule is the point, not the workers.
      const config = { source: { type: 'table' as const, path: p('table.csv') }, output: out, numWorkers: 0 };
      expect(await service.call('builds.start', { config })).toMatchObject({ ok: false, error: { code: 'OUTPUT_EXISTS' } });
      expect(await service.call('builds.start', { config: { ...config, output: p('table.csv') }, overwrite: true })).toMatchObject({
        ok: false,
        error: { code: 'OUTPUT_IS_INPUT' },
      });
      expect(readFileSync(out, 'utf8')).toBe('precious');
      const events: string[] = [];
      service.on((e) => e.event === 'jobs:finished' && events.push(e.data.status));
      const ok = await service.call('builds.start', { config, overwrite: true });
      expect(ok.ok).toBe(true);
      const t0 = Date.now();
      while (events.length === 0 && Date.now() - t0 < 30_000) await new Promise((r) => setTimeout(r, 20));
      expect(events).toEqual(['ok']);
      expect(statSync(out).size).toBeGreaterThan(100);
    } finally {
      service.close();
    }
  });
});
