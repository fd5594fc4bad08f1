// Issue 22: a batch larger than the epoch with dropLast (the default, as FFCV's drop_last) is
// an explicit error in the library and in the exported Python, never zero batches silently.
// (The exported Python run by the real FFCV: drop-last-ffcv.test.ts, slow tier.)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseLoaderConfig } from '../../core/api/loader-config.js';
import { loaderToPython } from '../../core/export/python.js';
import { IntField } from '../../core/fields/int-field.js';
import { batchesPerEpoch, requireSomeBatch } from '../../core/loader/drop-last.js';
import { Loader } from '../../core/loader/loader.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-droplast-'));
const file = join(dir, 'small.beton');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeAll(async () => {
  await new DatasetWriter(file, { label: new IntField() }, { numWorkers: 0 }).write(
    Array.from({ length: 48 }, (_, i) => ({ label: BigInt(i) })),
  );
});

describe('a batch larger than the dataset', () => {
  it('fails to open with dropLast (default), naming dropLast and both fixes', async () => {
    const open = Loader.open(file, { batchSize: 256, numWorkers: 1 });
    await expect(open).rejects.toMatchObject({ code: 'BAD_OPTIONS' });
    await expect(Loader.open(file, { batchSize: 256, numWorkers: 1 })).rejects.toThrow(
      /batchSize 256 is larger than the 48 samples .*small\.beton.*dropLast.*dropLast: false.*at most 48/,
    );
  });

  it('gives one short batch with dropLast: false, and full batches when the batch fits', async () => {
    const short = await Loader.open(file, { batchSize: 256, numWorkers: 1, dropLast: false });
    expect(short.length).toBe(1);
    await short.close();
    // A batch that fits is let through by the same check the refusal above comes from (a
    // second loader would cost a worker start, ~1.5 s, for this).
    expect(() => requireSomeBatch(48, 48, true, file)).not.toThrow();
    expect(batchesPerEpoch(48, 48, true)).toBe(1);
  });

  it('counts the samples of this rank: indices smaller than the batch fail too', async () => {
    await expect(Loader.open(file, { batchSize: 16, numWorkers: 1, indices: [1, 2, 3] })).rejects.toThrow(/the 3 samples/);
  });

  it('the exported Python stops with the same advice instead of training on zero batches', () => {
    const r = parseLoaderConfig({ file, batchSize: 256, dropLast: true, pipelines: {} });
    if (!r.ok) throw new Error(JSON.stringify(r));
    const code = loaderToPython(r.value);
    expect(code).toContain('if len(loader) == 0 and len(loader.indices) > 0:');
    expect(code).toMatch(/drop_last=True FFCV yields no batch; pass drop_last=False or a smaller batch_size/);
    const noDrop = parseLoaderConfig({ file, batchSize: 256, dropLast: false, pipelines: {} });
    if (!noDrop.ok) throw new Error(JSON.stringify(noDrop));
    expect(loaderToPython(noDrop.value)).not.toContain('len(loader) == 0');
  });
});
