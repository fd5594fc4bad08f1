/**
 * One concept per file, kept honest by size (issue 32): no file in core/ over 400 lines
 * unless docs/architecture.md names it with its reason ("Files over 400 lines"). A file
 * that grows past the limit is two concepts waiting to be split, or says in the doc why not.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const LIMIT = 400;

/** Every .ts file under `dir`, as paths relative to the repository. */
function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

/** The files the architecture document excuses: `core/…` paths in its "Files over 400 lines" section. */
function excused(): Set<string> {
  const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const at = doc.indexOf('## Files over 400 lines');
  if (at < 0) return new Set();
  const end = doc.indexOf('\n## ', at + 3);
  const section = doc.slice(at, end < 0 ? undefined : end);
  return new Set([...section.matchAll(/`(core\/[^`]+\.ts)`/g)].map((m) => m[1]!));
}

const lineCount = (text: string): number => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

describe('file sizes in core/', () => {
  it(`no file is over ${LIMIT} lines unless docs/architecture.md says why`, () => {
    const ok = excused();
    const over = tsFiles(join(ROOT, 'core'))
      .map((f) => ({ f, n: lineCount(readFileSync(join(ROOT, f), 'utf8')) }))
      .filter(({ f, n }) => n > LIMIT && !ok.has(f))
      .map(({ f, n }) => `${f}: ${n} lines`);
    expect(over).toEqual([]);
  });

  it('counts lines as wc -l does, so the check can fail', () => {
    expect(lineCount('a\nb\n')).toBe(2);
    expect(lineCount('a\nb')).toBe(2);
    expect(lineCount('x\n'.repeat(LIMIT + 1))).toBeGreaterThan(LIMIT);
  });
});
