/**
 * Issue 29, item 3: brace expansion is bounded by bytes and names. A 4 KB pattern ({a,b} × 20
 * and 3,900 more characters) ended in a V8 out-of-memory abort after 20 s and 4.3 GB: the
 * 10^6 cap counted names, not bytes. A fuzz family of patterns up to 64 KB: each answers (names
 * or one BAD_OPTIONS line) in bounded time and heap.
 */
import { describe, expect, it } from 'vitest';
import { expandBraces, isPathPattern } from '../../core/sources/common/path-patterns.js';
import { cli } from '../helpers/cli.js';
import { STACK_LINE } from '../helpers/cli-inputs.js';
import { rng } from '../helpers/look-alikes.js';

/** Expands `p`; its names or its error, and how long it took. */
function attempt(p: string): { names: number; error: string | null; ms: number } {
  const t0 = performance.now();
  try {
    return { names: expandBraces(p).length, error: null, ms: performance.now() - t0 };
  } catch (e) {
    return { names: 0, error: `${(e as { code?: string }).code}: ${(e as Error).message}`, ms: performance.now() - t0 };
  }
}

describe('brace patterns are bounded by bytes and names (issue 29)', () => {
  it('the 4 KB pattern of the report: one error, in bounded time', () => {
    const p = '{a,b}'.repeat(20) + 'x'.repeat(3900) + '.tar';
    const heap0 = process.memoryUsage().heapUsed;
    const r = attempt(p);
    console.log(`4 KB pattern: ${r.ms.toFixed(0)} ms: ${r.error}`);
    expect(r.error).toMatch(/^BAD_OPTIONS: .*\(4004 characters\): expands to more than 64 MiB of names$/);
    expect(process.memoryUsage().heapUsed - heap0).toBeLessThan(512 << 20);
    expect(r.ms).toBeLessThan(10_000);
  });

  it('a fuzz family up to 64 KB: each finishes with names or one BAD_OPTIONS line', () => {
    const r = rng(29);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
    const pieces = ['{a,b}', '{0..9}', '{x,{y,z}}', 'abc', '/', '{', '}', ',', '{000..120}', '{a,b,c,d,e,f,g,h}', 'x'.repeat(500)];
    const patterns = [
      '{' + 'a,'.repeat(32_000), // commas, no closing brace: a backtracking RegExp would be quadratic
      '{'.repeat(65_000) + 'a,b}',
      '{a,b}'.repeat(13_000),
      'y'.repeat(60_000) + '{a,b}'.repeat(16),
      '{0..999999}{0..9}',
    ];
    for (let k = 0; k < 12; k++) {
      let p = '';
      const len = Math.floor(r() * 65_536);
      while (p.length < len) p += pick(pieces);
      patterns.push(p.slice(0, 65_536));
    }
    const t0 = performance.now();
    for (const p of patterns) {
      const a = attempt(p);
      if (a.error) expect(a.error).toMatch(/^BAD_OPTIONS: [^\n]{1,400}$/);
      else expect(a.names).toBeLessThanOrEqual(1_000_000);
      expect(a.ms, `${p.length} characters`).toBeLessThan(5_000);
    }
    console.log(`${patterns.length} patterns up to 64 KB in ${Math.round(performance.now() - t0)} ms`);
    expect(isPathPattern('{' + 'a,'.repeat(32_000))).toBe(false);
  }, 30_000);

  it('beton build with the 4 KB pattern: one line, exit 1', () => {
    const r = cli(['build', '/tmp/' + '{a,b}'.repeat(20) + 'x'.repeat(3900) + '.tar', '-o', '/tmp/never.beton'], { timeoutMs: 30_000 });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/expands to more than 64 MiB of names/);
    expect(r.stderr).not.toMatch(STACK_LINE);
  });
});
