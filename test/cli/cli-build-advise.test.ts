/**
 * `beton build --advise` (issue 14, feature 3, CLI parity): the app's advice as text or
 * JSON, and nothing written. Also: a CLI build leaves the sidecar manifest beside its output.
 * The text advice runs as a real process (what it prints); the rest call the CLI's main() in
 * this process, with no encode workers.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BuildAdvice } from '../../core/api/build-advice.js';
import { cliIn } from '../helpers/cli.js';
import { cliHere } from '../helpers/cli-in-process.js';

const ROOT = resolve(__dirname, '../..');
const SAMPLE = join(ROOT, 'assets/sample-images');
const dir = mkdtempSync(join(tmpdir(), 'beton-advise-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cli = cliIn(dir);

describe('beton build --advise', () => {
  it('prints the estimates, the page size suggestion and the crop warning; writes nothing', () => {
    const r = cli(
      'build',
      SAMPLE,
      '-o',
      join(dir, 'x.beton'),
      '--write-mode',
      'jpg',
      '--max-resolution',
      '64',
      '--advise',
      '--crop',
      '160',
      '--sample',
      '12',
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('Estimated from 12 items picked at random (seed 0) of 48');
    expect(r.stdout).toMatch(/output: about 16\.0 MiB/);
    expect(r.stdout).toMatch(/2\.0 MiB → 4\.0 MiB \(1 page\) {2}\[suggested\]/);
    expect(r.stdout).toMatch(/JPEG q50 \d+ B, JPEG q75/);
    expect(r.stdout).toContain("warning: The loader's 160 px crop is larger than the max resolution 64 px");
    expect(readdirSync(dir)).toEqual([]);
  });

  it('--json gives the advice without the preview images', async () => {
    const r = await cliHere(['build', SAMPLE, '--advise', '--json', '--sample', '4', '--workers', '0']);
    expect(r.status, r.stderr).toBe(0);
    const a = JSON.parse(r.stdout) as BuildAdvice;
    expect(a.sampled).toBe(4);
    expect(a.quality!.items[0]!.variants[0]).not.toHaveProperty('preview');
  });

  it('--crop without --advise is a usage error', async () => {
    const r = await cliHere(['build', SAMPLE, '-o', join(dir, 'y.beton'), '--crop', '160']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--crop goes with --advise');
  });

  it('--sample and --crop outside what the app accepts are usage errors naming the range', async () => {
    for (const [flag, v, range] of [
      ['--sample', '0', '1 to 256'],
      ['--sample', '2.5', '1 to 256'],
      ['--crop', '4', '8 to 8192'],
    ] as const) {
      const r = await cliHere(['build', SAMPLE, '--advise', flag, v]);
      expect(r.status, `${flag} ${v}`).toBe(2);
      expect(r.stderr).toContain(`${flag} expects a whole number from ${range}, got "${v}"`);
    }
  });

  it('a CLI build writes OUT.beton.manifest.json with the class names', async () => {
    const out = join(dir, 'm.beton');
    const r = await cliHere(['build', SAMPLE, '-o', out, '--max-resolution', '16', '--workers', '0']);
    expect(r.status, r.stderr).toBe(0);
    expect(existsSync(`${out}.manifest.json`)).toBe(true);
    const m = JSON.parse(readFileSync(`${out}.manifest.json`, 'utf8')) as { classNames: { names: string[] } };
    expect(m.classNames.names).toEqual(['circles', 'gradients', 'squares', 'stripes']);
  });
});
