import { readdirSync, statSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { BetonEncodeError } from '../../format/errors.js';
import type { ReadGuard } from './read-guard.js';

/**
 * Many files named by one pattern, as the ML world writes them: WebDataset's brace ranges
 * (`train-{000000..000041}.tar`, zero padding kept), brace lists (`{train,val}.csv`) and
 * shell globs (`data/train-*.parquet`, `?`). Braces expand in the order written (as bash
 * and WebDataset do); each glob's matches are sorted by name, so "name order" is the
 * order rows are read in.
 */

/**
 * The first brace group that expands: `{` … `}` with no brace inside, holding a comma or a
 * numeric range (`{abc}` is a literal name). A linear scan, not a RegExp: on a long pattern
 * with many commas and no closing brace a backtracking RegExp is quadratic.
 */
function firstBraceGroup(s: string): { index: number; body: string } | null {
  const brace = /[{}]/g;
  for (let i = s.indexOf('{'); i >= 0; i = s.indexOf('{', i + 1)) {
    brace.lastIndex = i + 1;
    const j = brace.exec(s)?.index ?? -1;
    if (j < 0) return null;
    if (s[j] !== '}') {
      i = j - 1;
      continue;
    }
    const body = s.slice(i + 1, j);
    if (body.includes(',') || /^-?\d+\.\.-?\d+$/.test(body)) return { index: i, body };
  }
  return null;
}

/** Whether `path` is a pattern rather than one file name. */
export function isPathPattern(path: string): boolean {
  return /[*?]/.test(path) || firstBraceGroup(path) !== null;
}

/** Most files one pattern may name: a typo such as {0..99999999} must not allocate forever. */
const MAX_EXPANSION = 1_000_000;
/**
 * Most bytes of names one expansion may produce (intermediate names counted too): names are
 * not the only bound, a 4 KB pattern of 20 two-way braces names 2^20 names of 4 KB (4 GB).
 */
const MAX_EXPANSION_BYTES = 64 * 1024 * 1024;

interface Budget {
  names: number;
  bytes: number;
}

/** Expands brace ranges and lists (nested braces are expanded left to right), within MAX_EXPANSION names and MAX_EXPANSION_BYTES bytes. */
export function expandBraces(pattern: string): string[] {
  return expandWithin(pattern, pattern, { names: 0, bytes: 0 });
}

function expandWithin(pattern: string, original: string, budget: Budget): string[] {
  const m = firstBraceGroup(pattern);
  if (!m) return [pattern];
  const body = m.body;
  const head = pattern.slice(0, m.index);
  const tail = pattern.slice(m.index + body.length + 2);
  const tooMany = (what: string): BetonEncodeError =>
    new BetonEncodeError('BAD_OPTIONS', `${short(original)}: ${what}`, { source: short(original) });
  let items: string[];
  const range = /^(-?\d+)\.\.(-?\d+)$/.exec(body);
  if (range) {
    const [a, b] = [Number(range[1]), Number(range[2])];
    const width = range[1]!.startsWith('0') || range[2]!.startsWith('0') ? Math.max(range[1]!.length, range[2]!.length) : 0;
    if (Math.abs(b - a) + 1 > MAX_EXPANSION) throw tooMany(`the range {${body}} names more than ${MAX_EXPANSION} files`);
    const step = a <= b ? 1 : -1;
    items = [];
    for (let i = a; step > 0 ? i <= b : i >= b; i += step) items.push(String(i).padStart(width, '0'));
  } else items = body.split(',');
  const out: string[] = [];
  for (const it of items) {
    const next = head + it + tail;
    // Every string made counts, before it is expanded further: the bound holds at every depth.
    budget.names++;
    budget.bytes += next.length;
    if (budget.names > MAX_EXPANSION) throw tooMany(`names more than ${MAX_EXPANSION} files`);
    if (budget.bytes > MAX_EXPANSION_BYTES) throw tooMany(`expands to more than ${MAX_EXPANSION_BYTES >> 20} MiB of names`);
    for (const e of expandWithin(next, original, budget)) out.push(e);
  }
  return out;
}

/** A pattern as messages name it: at most 200 characters. */
function short(pattern: string): string {
  return pattern.length > 200 ? `${pattern.slice(0, 100)}…${pattern.slice(-80)} (${pattern.length} characters)` : pattern;
}

/** A glob segment (`*`, `?`) as a RegExp over one path component. */
function segmentRegExp(seg: string): RegExp {
  const body = seg
    .split('')
    .map((c) => (c === '*' ? '[^/]*' : c === '?' ? '[^/]' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}$`);
}

/** Whether `guard` lets `p` be read (no guard: everything). */
const allowed = (guard: ReadGuard | undefined, p: string): boolean => {
  if (!guard) return true;
  try {
    guard(p);
    return true;
  } catch {
    return false;
  }
};

/**
 * The files one glob matches (wildcards in any path component), sorted by name. Under
 * `beton serve` (a guard) a folder outside the served ones is never listed: its names
 * would tell what exists there.
 */
function globFiles(pattern: string, guard?: ReadGuard): string[] {
  const abs = resolve(pattern);
  const parts = abs.split(sep);
  let dirs = [parts[0] === '' ? sep : parts[0]!];
  for (let i = 1; i < parts.length; i++) {
    const seg = parts[i]!;
    const last = i === parts.length - 1;
    const next: string[] = [];
    for (const d of dirs) {
      if (!/[*?]/.test(seg)) {
        next.push(join(d, seg));
        continue;
      }
      if (!allowed(guard, d)) continue;
      let names: string[];
      try {
        names = readdirSync(d).sort();
      } catch {
        continue;
      }
      const re = segmentRegExp(seg);
      for (const n of names) if (re.test(n) && !n.startsWith('.')) next.push(join(d, n));
    }
    dirs = last ? next : next.filter((p) => isDir(p));
  }
  return dirs.filter((p) => allowed(guard, p) && isFile(p));
}

const isDir = (p: string): boolean => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};
const isFile = (p: string): boolean => {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
};

/**
 * The files a pattern names, in read order: braces first (in the order written), then each
 * glob's matches by name. Files a brace names must exist (a missing shard is an error
 * naming it, not a silently smaller dataset); a glob that matches nothing is an error too.
 * With a guard (`beton serve`), each name is confined before it is looked at: one outside
 * the served folders is the guard's error whether it exists or not, and globs list no
 * folder outside them.
 */
export function expandPathPattern(pattern: string, baseDir = process.cwd(), guard?: ReadGuard): string[] {
  const out: string[] = [];
  for (const p of expandBraces(pattern)) {
    const abs = resolve(baseDir, p);
    if (/[*?]/.test(p)) {
      const hits = globFiles(abs, guard);
      if (hits.length === 0) throw new BetonEncodeError('BAD_OPTIONS', `${abs}: no file matches this pattern`, { source: abs });
      for (const h of hits) out.push(h);
    } else {
      guard?.(abs);
      if (!isFile(abs)) {
        const why = isDir(abs) ? 'is a folder' : 'does not exist';
        throw new BetonEncodeError('BAD_OPTIONS', `${abs} (named by ${pattern}) ${why}`, { source: abs });
      }
      out.push(abs);
    }
  }
  if (out.length === 0) throw new BetonEncodeError('BAD_OPTIONS', `${pattern}: names no files`, { source: pattern });
  return out;
}

/** Files of a folder (not recursive) whose names pass `keep`, by name. */
export function folderFiles(dir: string, keep: (name: string) => boolean): string[] {
  return readdirSync(dir)
    .filter((n) => keep(n) && !n.startsWith('.'))
    .sort()
    .map((n) => join(dir, n))
    .filter(isFile);
}
