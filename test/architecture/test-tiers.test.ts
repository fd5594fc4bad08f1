/**
 * The test tiers (test/tiers.ts): `npm test` runs every test file, `npm run test:fast` leaves
 * out the slow tier. A test file that neither config would run (a new suffix, a folder outside
 * the include globs) or a slow-list entry that no longer names a file fails here, and the
 * folders that need a browser, FFCV or a packed install can never slip into the fast tier.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, matchesGlob, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import full from '../../vitest.config.js';
import fast from '../../vitest.fast.config.js';
import { SLOW_FILES, SLOW_FOLDERS, TEST_FILES, fastTierExcludes } from '../tiers.js';

const ROOT = join(import.meta.dirname, '../..');

/** Every file under test/ whose name says it is a test, whatever its suffix. */
function testLikeFiles(dir = join(ROOT, 'test')): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...testLikeFiles(path));
    else if (/\.(test|spec)\.[cm]?[jt]sx?$/.test(name)) out.push(relative(ROOT, path).split(sep).join('/'));
  }
  return out.sort();
}

const matchesAny = (file: string, globs: readonly string[]): boolean => globs.some((g) => matchesGlob(file, g));
const files = testLikeFiles();
const fastExcludes = fast.test?.exclude ?? [];
const inFull = (f: string): boolean => matchesAny(f, full.test?.include ?? []) && !matchesAny(f, full.test?.exclude ?? []);
const inFast = (f: string): boolean => matchesAny(f, fast.test?.include ?? []) && !matchesAny(f, fastExcludes);

describe('test tiers', () => {
  it('both configs read their lists from test/tiers.ts', () => {
    expect(full.test?.include).toEqual(TEST_FILES);
    expect(fast.test?.include).toEqual(TEST_FILES);
    expect(fastExcludes).toEqual(expect.arrayContaining(fastTierExcludes()));
  });

  it('every test file runs in the full tier', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files.filter((f) => !inFull(f))).toEqual([]);
  });

  it('every test file is in the fast tier or named slow in test/tiers.ts, not both', () => {
    const slow = (f: string): boolean => f in SLOW_FILES || Object.keys(SLOW_FOLDERS).some((d) => f.startsWith(d));
    expect(files.filter((f) => inFast(f) === slow(f))).toEqual([]);
  });

  it('the fast tier leaves out the browser, FFCV, install and Slurm tests', () => {
    for (const dir of ['test/e2e/', 'test/interop/', 'test/install/']) {
      const there = files.filter((f) => f.startsWith(dir));
      expect(there.length, dir).toBeGreaterThan(0);
      expect(there.filter(inFast), dir).toEqual([]);
    }
    expect(inFast('test/cli/slurm.test.ts')).toBe(false);
    expect(inFast('test/cli/cli-build.test.ts')).toBe(true);
  });

  it('every slow-list entry still names a test file, outside the slow folders', () => {
    for (const f of Object.keys(SLOW_FILES)) {
      expect(files, f).toContain(f);
      expect(
        Object.keys(SLOW_FOLDERS).some((d) => f.startsWith(d)),
        f,
      ).toBe(false);
    }
  });
});
