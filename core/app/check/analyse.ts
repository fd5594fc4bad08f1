import type { CheckThresholds, DatasetCheckResult } from '../../api/dataset-check.js';
import { nearGroups } from './near-duplicates.js';
import type { SampleFacts } from './sample-facts.js';

/** At most this many groups are listed a kind, each with at most this many ids (the rest counted in `omitted`). */
export const MAX_GROUPS_LISTED = 1000;
export const MAX_IDS_PER_GROUP = 1000;

/** The listed part of `groups` (already in report order) and how much was left out. */
function capped(groups: number[][]): { groups: number[][]; groupsLeft: number; idsLeft: number } {
  const listed = groups.slice(0, MAX_GROUPS_LISTED);
  let idsLeft = 0;
  const out = listed.map((g) => {
    if (g.length <= MAX_IDS_PER_GROUP) return g;
    idsLeft += g.length - MAX_IDS_PER_GROUP;
    return g.slice(0, MAX_IDS_PER_GROUP);
  });
  return { groups: out, groupsLeft: groups.length - listed.length, idsLeft };
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
  // Grouped as pairs are found (union-find), never a list of pairs: look-alike images make k²/2 of them.
  const found = nearGroups(
    hashed.map((f) => f.phash!),
    t.hamming,
  );
  const near = conflictsFirst(
    found.groups.map((g) => g.map((i) => hashed[i]!.id)),
    (id) => labelOf.get(id),
  );

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

  const dupOut = capped(dup.groups);
  const nearOut = capped(near.groups);
  const result: DatasetCheckResult = { corrupt, duplicates: dupOut.groups, near_duplicates: nearOut.groups, outliers, classes };
  if (dupOut.groupsLeft || dupOut.idsLeft || nearOut.groupsLeft || nearOut.idsLeft || !found.complete)
    result.omitted = {
      duplicateGroups: dupOut.groupsLeft,
      duplicateIds: dupOut.idsLeft,
      nearDuplicateGroups: nearOut.groupsLeft,
      nearDuplicateIds: nearOut.idsLeft,
      nearSearchComplete: found.complete,
    };
  return {
    result,
    labelConflicts: { duplicates: dup.conflicts, near_duplicates: near.conflicts },
  };
}
