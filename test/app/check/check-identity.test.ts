/**
 * Issue 29, item 2: a check result is a claim about exact bytes.
 * - The identity hashed only header and tables: other pixels of the same size kept it, and
 *   the app showed the old "0 duplicates". Now it is the whole file's sha256.
 * - A file swapped in during `beton check` got the old file's result under the new identity
 *   (3,000 samples for a 20-sample file). Now the check fails, keeping nothing.
 * - The sidecar was read with a blocking, unconfined readFile and trusted: a FIFO never
 *   answered, a link out of the served folder was followed, a wrong shape with the right
 *   hash broke the sample view. Now each is "not checked" (null), at once.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkDataset, checkSidecarPath, readDatasetCheck } from '../../../core/app/check-dataset.js';
import { confineOpensTo } from '../../../core/native/confined-opens.js';
import { Reader } from '../../../core/reader/reader.js';
import { writeImageBeton } from '../../helpers/cli-inputs.js';

const dir = mkdtempSync(join(tmpdir(), 'check-identity-'));
const served = join(dir, 'served');
const outside = join(dir, 'outside');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const file = join(served, 'a.beton');
beforeAll(async () => {
  mkdirSync(served);
  mkdirSync(outside);
  await writeImageBeton(file, 40, { width: 16, height: 16 });
  await checkDataset(file, { numWorkers: 0 });
}, 60_000);

/** Resolves within `ms` or says it hung. */
async function within<T>(p: Promise<T>, ms = 5000): Promise<T | 'hung'> {
  let t: NodeJS.Timeout | undefined;
  const hung = new Promise<'hung'>((r) => (t = setTimeout(() => r('hung'), ms)));
  try {
    return await Promise.race([p, hung]);
  } finally {
    clearTimeout(t);
  }
}

/** A copy of `file` with its kept check, then `edit` applied to the copy's sidecar JSON. */
function withSidecar(name: string, edit: (doc: Record<string, unknown>) => unknown): string {
  const f = join(served, name);
  copyFileSync(file, f);
  const doc = JSON.parse(readFileSync(checkSidecarPath(file), 'utf8')) as Record<string, unknown>;
  writeFileSync(checkSidecarPath(f), JSON.stringify(edit(doc)));
  return f;
}

describe('check identity and hostile sidecars (issue 29)', () => {
  it('the kept check is read back while the bytes are the same', async () => {
    const doc = await readDatasetCheck(file);
    expect(doc?.beton.dataSha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('other pixels of the same size (header and tables unchanged): not checked', async () => {
    const f = withSidecar('pixels.beton', (d) => d);
    expect(await readDatasetCheck(f)).not.toBeNull();
    const bytes = readFileSync(f);
    const r = Reader.openSync(f);
    const at = r.regions.dataStart + 5; // a pixel of the first image
    r.close();
    bytes[at] = bytes[at]! ^ 0xff;
    writeFileSync(f, bytes);
    expect(await readDatasetCheck(f)).toBeNull();
  });

  it('a FIFO named as the sidecar: not checked, at once (four of them do not fill the thread pool)', async () => {
    const fs = Array.from({ length: 4 }, (_, k) => {
      const f = join(served, `fifo${k}.beton`);
      copyFileSync(file, f);
      execFileSync('mkfifo', [checkSidecarPath(f)]);
      return f;
    });
    expect(await within(Promise.all(fs.map((f) => readDatasetCheck(f))))).toEqual([null, null, null, null]);
    // Another file's check still answers.
    expect(await within(readDatasetCheck(file))).not.toBeNull();
  });

  for (const [what, edit] of [
    ['duplicates not a list', (d: Record<string, unknown>) => ({ ...d, result: { ...(d.result as object), duplicates: {} } })],
    [
      'a group id past the file',
      (d: Record<string, unknown>) => ({ ...d, result: { ...(d.result as object), near_duplicates: [[0, 1_000_000]] } }),
    ],
    ['no result', (d: Record<string, unknown>) => ({ ...d, result: null })],
    ['a string for the samples', (d: Record<string, unknown>) => ({ ...d, beton: { ...(d.beton as object), numSamples: '40' } })],
    ['not JSON', () => '{"format": "beton-studio/dataset-check", '],
    ['an array', () => []],
  ] as const) {
    it(`right hash, wrong shape (${what}): not checked`, async () => {
      const f = withSidecar(`shape-${what.replace(/\W/g, '')}.beton`, edit);
      expect(await readDatasetCheck(f)).toBeNull();
    });
  }

  it('a sidecar linked out of the served folder: not checked', async () => {
    const f = join(served, 'linked.beton');
    copyFileSync(file, f);
    const out = join(outside, 'linked.beton.check.json');
    copyFileSync(checkSidecarPath(file), out);
    symlinkSync(out, checkSidecarPath(f));
    expect(await readDatasetCheck(f)).not.toBeNull(); // unconfined (the CLI): a link is followed
    confineOpensTo([realpathSync(served)]);
    expect(await readDatasetCheck(f)).toBeNull();
    expect(await readDatasetCheck(file)).not.toBeNull();
  });

  for (const numWorkers of [0, 2]) {
    it(`a file swapped in during the check (${numWorkers} workers): the old file's result is never kept under the new one`, async () => {
      const big = join(served, `big${numWorkers}.beton`);
      const small = join(dir, `small${numWorkers}.beton`);
      await writeImageBeton(big, 3000, { width: 16, height: 16 });
      await writeImageBeton(small, 20, { width: 16, height: 16 });
      let swapped = false;
      const run = checkDataset(big, {
        numWorkers,
        onProgress: () => {
          if (!swapped) renameSync(small, big);
          swapped = true;
        },
      });
      await expect(run).rejects.toThrow(/replaced or written to while it was checked/);
      expect(swapped).toBe(true);
      const kept = await readDatasetCheck(big);
      if (kept) expect(kept.beton.numSamples).toBe(20);
    }, 60_000);
  }
});
