// Issue 22: a batch larger than the epoch with dropLast (the default, as FFCV's drop_last) is
// an explicit error in the library and in the exported Python, never zero batches silently.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseLoaderConfig } from '../../core/api/loader-config.js';
import { loaderToPython } from '../../core/export/python.js';
import { IntField } from '../../core/fields/int-field.js';
import { Loader } from '../../core/loader/loader.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';
import { ffcvStatus, PYTHON } from '../interop/ffcv.js';
import { requires } from '../helpers/requires.js';

const HAVE_FFCV = requires('FFCV', `pip install ffcv (the exported loader is run by ${PYTHON})`, ffcvStatus().ok);

const dir = mkdtempSync(join(tmpdir(), 'beton-droplast-'));
const file = join(dir, 'small.beton');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeAll(async () => {
  await new DatasetWriter(file, { label: new IntField() }).write(Array.from({ length: 48 }, (_, i) => ({ label: BigInt(i) })));
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
    const fits = await Loader.open(file, { batchSize: 48, numWorkers: 1 });
    expect(fits.length).toBe(1);
    await fits.close();
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

  // Issue 33 item 6: the FFCV half runs under describeFfcv's rule (skipped loudly without FFCV,
  // a failure under CI=true), not behind a silent return.
  it.runIf(HAVE_FFCV)(
    'the exported Python, run by FFCV, stops with that advice (exit 1)',
    () => {
      const r = parseLoaderConfig({ file, batchSize: 256, dropLast: true, pipelines: {} });
      if (!r.ok) throw new Error(JSON.stringify(r));
      const script = join(dir, 'loader.py');
      writeFileSync(script, loaderToPython(r.value));
      const run = spawnSync(PYTHON, [script], { encoding: 'utf8', timeout: 120_000 });
      expect(run.status, run.stderr).toBe(1);
      expect(run.stderr).toMatch(/batch_size 256 is larger than the 48 samples of .*small\.beton/);
    },
    150_000,
  );
});
