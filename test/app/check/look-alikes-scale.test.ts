/**
 * Issue 29, item 1, at scale: `beton check` on 100,000 look-alike images (distinct pixels,
 * perceptual hashes all within a few bits) used to keep k²/2 pairs and abort out of memory.
 * Now it finishes under a 1 GiB heap, groups capped with a count of the rest. Slow tier
 * (test/tiers.ts): ~36 s alone; look-alikes.test.ts keeps the grouping, the budget and a
 * 1,200-image capped case fast.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import type { DatasetCheckResult } from '../../../core/api/dataset-check.js';
import { ROOT } from '../../helpers/cli-inputs.js';
import { writeLookAlikeBeton } from '../../helpers/look-alikes.js';

const dir = mkdtempSync(join(tmpdir(), 'look-alikes-scale-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `beton check --json` in a child under /usr/bin/time: its JSON and its peak RSS in MB. */
async function checkChild(file: string): Promise<{ result: DatasetCheckResult; rssMb: number; stderr: string }> {
  const rssFile = join(dir, 'rss.txt');
  // A 1 GiB heap cap: the old grouping needed 5.5 GB at 10,000 images and aborts under it.
  const { stdout, stderr } = await promisify(execFile)(
    '/usr/bin/time',
    [
      '-o',
      rssFile,
      '-f',
      '%M',
      process.execPath,
      '--max-old-space-size=1024',
      join(ROOT, 'bin/beton.js'),
      'check',
      file,
      '--json',
      '--workers',
      '2',
    ],
    { timeout: 60_000, maxBuffer: 64 << 20 },
  );
  return { result: JSON.parse(stdout) as DatasetCheckResult, rssMb: Number(readFileSync(rssFile, 'utf8').trim()) / 1024, stderr };
}

describe('near-duplicates of 100,000 look-alikes in bounded memory (issue 29)', () => {
  it('beton check on 100,000 look-alike 16x16 images finishes under a 1 GiB heap; peak RSS printed', async () => {
    const file = join(dir, 'look-alikes.beton');
    await writeLookAlikeBeton(file, 100_000);
    const t0 = performance.now();
    const { result, rssMb } = await checkChild(file);
    const s = Math.round((performance.now() - t0) / 100) / 10;
    const listed = result.near_duplicates.reduce((n, g) => n + g.length, 0);
    console.log(
      `100k look-alikes: ${s} s, peak RSS ${Math.round(rssMb)} MB, ${result.near_duplicates.length} near groups listed (${listed} ids), omitted ${JSON.stringify(result.omitted)}`,
    );
    expect(result.corrupt).toEqual([]);
    expect(result.near_duplicates.length).toBeGreaterThan(0);
    // Output capped: at most 1,000 ids a group, the rest counted.
    for (const g of result.near_duplicates) expect(g.length).toBeLessThanOrEqual(1000);
    expect(result.omitted).toBeDefined();
    expect(result.omitted!.nearDuplicateIds).toBeGreaterThan(0);
    expect(rssMb).toBeLessThan(1024);
  }, 90_000);
});
