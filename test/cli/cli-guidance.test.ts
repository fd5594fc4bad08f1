// Issue 22: messages that guide. Each row failed on the code before it: parseArgs' broken
// quote and 40 lines of help, `--version` an unknown command, an internal temp file named
// instead of the user's folder, a library option name in CLI text.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { didYouMean } from '../../core/cli/did-you-mean.js';
import { cliInProcess as cli, SAMPLE_IMAGES as SAMPLES } from '../helpers/cli-in-process.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-guide-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('did you mean', () => {
  it('suggests the flag for a typo, in two lines, without the help or a broken quote', async () => {
    const r = await cli('build', SAMPLES, '-o', join(dir, 'x.beton'), '--max-resolutoin', '256');
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      'beton build: unknown option --max-resolutoin (did you mean --max-resolution?)\n  beton build --help lists the options.\n',
    );
  });

  it('suggests the command for a typo; says nothing it cannot guess', async () => {
    expect((await cli('biuld')).err).toBe('beton: unknown command "biuld" (did you mean build?)\n  beton --help lists the commands.\n');
    expect((await cli('inpsect', 'x')).err).toMatch(/did you mean inspect\?/);
    expect((await cli('frobnicate')).err).toBe('beton: unknown command "frobnicate"\n  beton --help lists the commands.\n');
    expect(didYouMean('--zzzzzzzz', ['--json', '--force'])).toBeUndefined();
  });

  it('other usage errors are one line plus where the options are', async () => {
    const r = await cli('build', SAMPLES, '-o', join(dir, 'x.beton'), '--write-mode', 'webp');
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n').length).toBeLessThanOrEqual(3);
    expect(r.err).not.toMatch(/Usage:|^beton build SOURCE/m);
    expect(r.err).toMatch(/beton build --help lists the options/);
  });
});

describe('beton --version', () => {
  it('prints the version and which native addon and JPEG library are in use', async () => {
    for (const flag of ['--version', '-V', 'version']) {
      const r = await cli(flag);
      expect(r.code).toBe(0);
      expect(r.out).toMatch(/^beton-studio \d+\.\d+\.\d+ \(Node \d+\.\d+\.\d+; native addon .*libjpeg/);
    }
  });
});

describe('errors name the user’s path', () => {
  it('a missing output folder is named, not the temporary file', async () => {
    const out = join(dir, 'missing', 'x.beton');
    const r = await cli('build', SAMPLES, '-o', out, '--workers', '1');
    expect(r.code).toBe(1);
    expect(r.err).toContain(`error [ENOENT]: cannot write ${out}: its folder ${join(dir, 'missing')} does not exist`);
    expect(r.err).not.toMatch(/\.tmp-/);
  }, 60_000);

  it('an existing output says --force without the library option name', async () => {
    const out = join(dir, 'exists.beton');
    expect((await cli('build', SAMPLES, '-o', out, '--workers', '1')).code).toBe(0);
    const r = await cli('build', SAMPLES, '-o', out, '--workers', '1');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/already exists; choose another output or pass --force to replace it/);
    expect(r.err).not.toContain('overwrite: true');
  }, 120_000);
});

describe('CLI builds are recorded like app builds', () => {
  it('beton build adds the build to the runs database (--db), as the app does', async () => {
    const db = join(dir, 'runs.sqlite');
    const out = join(dir, 'recorded.beton');
    const r = await cli('build', SAMPLES, '-o', out, '--workers', '1', '--db', db);
    expect(r.code, r.err).toBe(0);
    const { RunsDb } = await import('../../core/runs/runs-db.js');
    const runs = RunsDb.open(db);
    try {
      const builds = runs.listBuilds();
      expect(builds).toHaveLength(1);
      expect(JSON.stringify(builds[0])).toContain('recorded.beton');
    } finally {
      runs.close();
    }
  }, 120_000);

  it('a database that cannot be opened is a one-line note; the build still succeeds', async () => {
    const r = await cli('build', SAMPLES, '-o', join(dir, 'note.beton'), '--workers', '1', '--db', join(dir, 'exists.beton'));
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/^beton build: not recorded in the runs database: /m);
  }, 120_000);
});
