import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkDataset, checkSidecarPath, readDatasetCheck } from '../../../core/app/check-dataset.js';
import { main } from '../../../core/cli/main.js';
import { seedHealthDataset, writeHealthFolder } from '../../helpers/seeded-health.js';

const dir = mkdtempSync(join(tmpdir(), 'check-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** stdout of one CLI run. */
async function cli(args: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((s: string) => ((out += s), true)) as typeof process.stdout.write;
  try {
    return { code: await main(args), out };
  } finally {
    process.stdout.write = write;
  }
}

describe('beton check on a seeded dataset', () => {
  it('finds ≥ 90% of each planted problem and flags ≤ 2% of clean samples', async () => {
    const root = join(dir, 'images');
    const plan = writeHealthFolder(root, 160, { dups: 12, near: 12 });
    const file = join(dir, 'seeded.beton');
    const ids = await seedHealthDataset(root, plan, file);
    const id = (n: string): number => ids.get(n)!;

    const { code, out } = await cli(['check', file, '--json', '--workers', '2']);
    expect(code).toBe(0);
    const r = JSON.parse(out) as {
      corrupt: Array<{ id: number; error: string }>;
      duplicates: number[][];
      near_duplicates: number[][];
      outliers: Array<{ id: number; reason: string }>;
      classes: Record<string, number>;
    };
    expect(Object.keys(r).sort()).toEqual(['classes', 'corrupt', 'duplicates', 'near_duplicates', 'outliers']);

    const together = (groups: number[][], a: number, b: number): boolean => groups.some((g) => g.includes(a) && g.includes(b));
    const recall = {
      corrupt: plan.corrupt.filter((n) => r.corrupt.some((c) => c.id === id(n))).length / plan.corrupt.length,
      duplicates: plan.dups.filter(([a, b]) => together(r.duplicates, id(a), id(b))).length / plan.dups.length,
      near_duplicates: plan.near.filter(([a, b]) => together(r.near_duplicates, id(a), id(b))).length / plan.near.length,
      outliers: plan.aspect.filter((n) => r.outliers.some((o) => o.id === id(n) && /aspect/.test(o.reason))).length / plan.aspect.length,
    };
    const planted = new Set([
      ...plan.corrupt.map(id),
      ...plan.dups.flatMap(([a, b]) => [id(a), id(b)]),
      ...plan.near.flatMap(([a, b]) => [id(a), id(b)]),
      ...plan.aspect.map(id),
    ]);
    const flagged = new Set([
      ...r.corrupt.map((c) => c.id),
      ...r.duplicates.flat(),
      ...r.near_duplicates.flat(),
      ...r.outliers.map((o) => o.id),
    ]);
    const cleanIds = plan.clean.map(id).filter((i) => !planted.has(i));
    const falseFlags = cleanIds.filter((i) => flagged.has(i)).length;
    // Precision per kind: flagged ids that were planted as that kind.
    const precision = {
      corrupt: r.corrupt.filter((c) => plan.corrupt.map(id).includes(c.id)).length / Math.max(1, r.corrupt.length),
      duplicates:
        r.duplicates.flat().filter((i) => plan.dups.some(([a, b]) => id(a) === i || id(b) === i)).length /
        Math.max(1, r.duplicates.flat().length),
      near_duplicates:
        r.near_duplicates.flat().filter((i) => plan.near.some(([a, b]) => id(a) === i || id(b) === i)).length /
        Math.max(1, r.near_duplicates.flat().length),
      outliers: r.outliers.filter((o) => plan.aspect.map(id).includes(o.id)).length / Math.max(1, r.outliers.length),
    };
    console.log(JSON.stringify({ recall, precision, falseFlags, clean: cleanIds.length }));
    for (const v of Object.values(recall)) expect(v).toBeGreaterThanOrEqual(0.9);
    expect(falseFlags / cleanIds.length).toBeLessThanOrEqual(0.02);

    // Copies in another class: their groups come first, labels disagreeing.
    const across = plan.dups.filter(([, , other]) => other).map(([a]) => id(a));
    const firstGroups = r.duplicates.slice(0, across.length);
    for (const a of across) expect(firstGroups.some((g) => g.includes(a))).toBe(true);
    expect(Object.values(r.classes).reduce((s, n) => s + n, 0)).toBe(ids.size);

    // Kept beside the file, keyed by its content: read back without decoding.
    const kept = await readDatasetCheck(file);
    expect(kept?.result).toEqual(r);
    expect(checkSidecarPath(file)).toBe(`${file}.check.json`);
  }, 180_000);

  it('a kept check is ignored once the file changes', async () => {
    const root = join(dir, 'small');
    const plan = writeHealthFolder(root, 12, { dups: 2, near: 0 }, 2);
    const file = join(dir, 'small.beton');
    await seedHealthDataset(root, plan, file);
    const c = await checkDataset(file, { numWorkers: 0 });
    expect(c.result.corrupt).toHaveLength(2);
    expect(await readDatasetCheck(file)).not.toBeNull();
    // A rebuild (another page size) changes the content identity.
    // No encoder threads (--workers 0): what is checked is the content identity, not the encoding.
    const { code } = await cli(['build', root, '-o', file, '--force', '--page-size', String(1 << 22), '--json', '--workers', '0']);
    expect(code).toBe(0);
    expect(await readDatasetCheck(file)).toBeNull();
    // beton build --check checks what it built.
    const again = await cli(['build', root, '-o', file, '--force', '--check', '--workers', '0']);
    expect(again.code).toBe(0);
    expect(again.out).toMatch(/17 samples checked/);
    expect((await readDatasetCheck(file))?.result.duplicates).toHaveLength(2);
  }, 120_000);
});
