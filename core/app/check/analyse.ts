import type { CheckThresholds, DatasetCheckResult } from '../../api/dataset-check.js';
import { nearPairs } from './near-duplicates.js';
import type { SampleFacts } from './sample-facts.js';

/** Groups of ids from union-find over pairs, each sorted, groups by first id. */
function components(pairs: ReadonlyArray<[number, number]>): number[][] {
  const parent = new Map<number, number>();
  const find = (x: number): number => {
    let r = x;
    while (parent.has(r) && parent.get(r) !== r) r = parent.get(r)!;
    parent.set(x, r);
    return r;
  };
  for (const [a, b] of pairs) {
    if (!parent.has(a)) parent.set(a, a);
    if (!parent.has(b)) parent.set(b, b);
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent.set(Math.max(ra, rb), Math.min(ra, rb));
  }
  const groups = new Map<number, number[]>();
  for (const x of parent.keys()) {
    const r = find(x);
    const g = groups.get(r);
    if (g) g.push(x);
    else groups.set(r, [x]);
  }
  return [...groups.values()].map((g) => g.sort((a, b) => a - b)).sort((a, b) => a[0]! - b[0]!);
}

/** Groups whose labels disagree first (their count is returned), otherwise by first id. */
function conflictsFirst(groups: number[][], labelOf: (id: number) => number | null | undefined): { groups: number[][]; conflicts: number } {
  const disagree = (g: number[]): boolean => new Set(g.map(labelOf)).size > 1;
  const bad = groups.filter(disagree);
  return { groups: [...bad, ...groups.filter((g) => !disagree(g))], conflicts: bad.length };
}

export interface Analysis {
  result: DatasetCheckResult;
  labelConflicts: { duplicates: number; near_duplicates: number };
}

/**
 * Everything `beton check` reports, from the per-sample facts (each sample decoded once):
 * exact duplicates by hash, near-duplicates by perceptual hash (exact groups collapsed to
 * their first id, so a group is not reported twice), outliers by size and grey spread,
 * and samples per class.
 */
export function analyse(facts: readonly SampleFacts[], t: CheckThresholds, classNames: readonly string[] | null): Analysis {
  const labelOf = new Map<number, number | null | undefined>(facts.map((f) => [f.id, f.label]));
  const corrupt = facts.filter((f) => f.error !== undefined).map((f) => ({ id: f.id, error: f.error! }));
  const good = facts.filter((f) => f.error === undefined);

  const byHash = new Map<string, number[]>();
  for (const f of good) {
    const g = byHash.get(f.hash!);
    if (g) g.push(f.id);
    else byHash.set(f.hash!, [f.id]);
  }
  const exact = [...byHash.values()].filter((g) => g.length > 1).sort((a, b) => a[0]! - b[0]!);
  const dup = conflictsFirst(exact, (id) => labelOf.get(id));

  // One representative per exact group: a near-duplicate group names each image once. Flat
  // images are left out: their hash says nothing of their colour.
  const others = new Set(exact.flatMap((g) => g.slice(1)));
  const hashed = good.filter((f) => f.phash && !others.has(f.id) && !(f.stdDev !== undefined && f.stdDev < t.minStdDev));
  const pairs = nearPairs(
    hashed.map((f) => f.phash!),
    t.hamming,
  ).map(([a, b]): [number, number] => [hashed[a]!.id, hashed[b]!.id]);
  const near = conflictsFirst(components(pairs), (id) => labelOf.get(id));

  const outliers: DatasetCheckResult['outliers'] = [];
  for (const f of good) {
    if (f.width === undefined || f.height === undefined) continue;
    const reasons: string[] = [];
    const lo = Math.min(f.width, f.height);
    const hi = Math.max(f.width, f.height);
    if (lo < t.minSide) reasons.push(`tiny (${f.width}x${f.height}, shorter side < ${t.minSide} px)`);
    if (hi / Math.max(1, lo) > t.maxAspect)
      reasons.push(`extreme aspect ratio (${f.width}x${f.height}, ${(hi / Math.max(1, lo)).toFixed(1)}:1)`);
    if (f.stdDev !== undefined && f.stdDev < t.minStdDev) reasons.push(`near-uniform (grey std dev ${f.stdDev.toFixed(2)})`);
    if (reasons.length) outliers.push({ id: f.id, reason: reasons.join('; ') });
  }

  const classes: Record<string, number> = {};
  const counts = new Map<number, number>();
  for (const f of facts) if (typeof f.label === 'number') counts.set(f.label, (counts.get(f.label) ?? 0) + 1);
  for (const [label, n] of [...counts].sort((a, b) => a[0] - b[0])) classes[classNames?.[label] ?? String(label)] = n;

  return {
    result: { corrupt, duplicates: dup.groups, near_duplicates: near.groups, outliers, classes },
    labelConflicts: { duplicates: dup.conflicts, near_duplicates: near.conflicts },
  };
}
