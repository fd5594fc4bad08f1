/**
 * The test tiers (test/tiers.ts): `npm test` runs every test file, `npm run test:fast` leaves
 * out the slow tier. A test file that neither config would run (a new suffix, a folder outside
 * the include globs) or a slow-list entry that no longer names a file fails here, and the
 * folders that need a browser, FFCV or a packed install can never slip into the fast tier.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, matchesGlob, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import full from '../../vitest.config.js';
import fast from '../../vitest.fast.config.js';
import { ISOLATED_FILES, SLOW_FILES, SLOW_FOLDERS, TEST_FILES, fastTierExcludes } from '../tiers.js';

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

interface Globs {
  name: string;
  include: string[];
  exclude: string[];
}

/** A config's projects (vitest.config.ts: node and e2e), each with the config's own excludes added (they extend it). */
function projectsOf(config: typeof full): Globs[] {
  const own = config.test?.exclude ?? [];
  return (config.test?.projects ?? []).map((p) => {
    if (typeof p !== 'object' || !('test' in p)) throw new Error('vitest.config.ts: a project is not an inline config');
    return { name: p.test?.name as string, include: p.test?.include ?? [], exclude: [...own, ...(p.test?.exclude ?? [])] };
  });
}

const runsIn = (config: typeof full) => {
  const projects = projectsOf(config);
  return (f: string): boolean => projects.some((p) => matchesAny(f, p.include) && !matchesAny(f, p.exclude));
};
const files = testLikeFiles();
const fastExcludes = fast.test?.exclude ?? [];
const inFull = runsIn(full);
const inFast = runsIn(fast);

describe('test tiers', () => {
  it('both configs read their lists from test/tiers.ts', () => {
    for (const config of [full, fast]) {
      const [node, isolated, slow, e2e] = projectsOf(config);
      expect(node?.include).toEqual(TEST_FILES);
      // The e2e project (one shared Chromium) holds only e2e files; the node project none of them.
      expect(e2e?.include.every((g) => g.startsWith('test/e2e/'))).toBe(true);
      expect(node?.exclude).toContain('test/e2e/**');
      // The isolated project: the listed files; the slow project: the slow tier (but e2e, a project of its own).
      expect(isolated?.include).toEqual(Object.keys(ISOLATED_FILES));
      expect(slow?.include).toEqual(expect.arrayContaining(Object.keys(SLOW_FILES).filter((f) => !(f in ISOLATED_FILES))));
      expect(slow?.include).toEqual(expect.arrayContaining(['test/interop/**/*.test.ts', 'test/install/**/*.test.ts']));
      expect(node?.exclude).toEqual(expect.arrayContaining(Object.keys(ISOLATED_FILES)));
    }
    expect(fastExcludes).toEqual(expect.arrayContaining(fastTierExcludes()));
  });

  it('every project includes test files only (a helper, a .py or a .sh beside them is not run as a test)', () => {
    for (const config of [full, fast])
      for (const p of projectsOf(config)) for (const g of p.include) expect(g, `${p.name}: ${g}`).toMatch(/\.test\.tsx?$/);
  });

  it('a file runs in one project only', () => {
    for (const f of files)
      expect(projectsOf(full).filter((p) => matchesAny(f, p.include) && !matchesAny(f, p.exclude)).length, f).toBeLessThanOrEqual(1);
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

  it('the files that share a process are guarded: one that leaves process.env changed fails', () => {
    type Project = { test?: { name?: string; isolate?: boolean; setupFiles?: string | string[] } };
    for (const config of [full, fast]) {
      const node = ((config.test?.projects ?? []) as Project[]).find((p) => p.test?.name === 'node');
      expect(node?.test?.isolate).toBe(false);
      expect(node?.test?.setupFiles).toEqual(['test/helpers/shared-process-guard.ts']);
    }
  });

  it('only the isolated project starts workers through tsx (the slow tier, a loader per case, keeps dist/ workers)', () => {
    type Project = { test?: { name?: string; env?: Record<string, string> } };
    for (const config of [full, fast]) {
      const forced = ((config.test?.projects ?? []) as Project[]).filter((p) => p.test?.env?.BETON_WORKERS_FROM_DIST === '0');
      expect(forced.map((p) => p.test?.name)).toEqual(['isolated']);
    }
  });

  it('a file that replaces a module with vi.mock runs isolated (the node project shares its module cache)', () => {
    const mocking = files.filter((f) => /\bvi\.(do)?[mM]ock\(|\bregisterFieldType\(/.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(mocking.length).toBeGreaterThan(0);
    expect(mocking.filter((f) => !(f in ISOLATED_FILES))).toEqual([]);
    expect(Object.keys(ISOLATED_FILES).filter((f) => !mocking.includes(f))).toEqual([]);
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
