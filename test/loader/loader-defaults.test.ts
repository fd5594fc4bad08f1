/**
 * The loader's defaults, stated once in LOADER_DEFAULTS (core/api/constants.ts): a LoaderConfig
 * (the app, the CLI, the profiler's sweep) shuffles, the Loader class keeps FFCV's sequential
 * order. These check each surface really uses what the constant says.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOADER_DEFAULTS } from '../../core/api/constants.js';
import { parseLoaderConfig } from '../../core/api/loader-config.js';
import { PROFILE_DEFAULTS } from '../../core/api/profile-plan.js';
import { IntField } from '../../core/fields/int-field.js';
import { Loader } from '../../core/loader/loader.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-loader-defaults-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const N = 40;
let file: string;
beforeAll(async () => {
  file = join(dir, 'labels.beton');
  await new DatasetWriter(file, { label: new IntField() }, { numWorkers: 0 }).write(Array.from({ length: N }, (_, i) => ({ label: i })));
});

describe('loader defaults', () => {
  it('a LoaderConfig that leaves them out gets LOADER_DEFAULTS: a random order, seed 0', () => {
    const r = parseLoaderConfig({ file: 'x.beton', batchSize: 8 });
    if (!r.ok) throw new Error(r.errors.join('; '));
    const { order, seed, dropLast, batchesAhead, osCache } = r.value;
    expect({ order, seed, dropLast, batchesAhead, osCache }).toEqual({
      order: LOADER_DEFAULTS.order,
      seed: LOADER_DEFAULTS.seed,
      dropLast: LOADER_DEFAULTS.dropLast,
      batchesAhead: LOADER_DEFAULTS.batchesAhead,
      osCache: LOADER_DEFAULTS.osCache,
    });
    expect(order).toBe('random');
  });

  it("the profiler's sweep measures a LoaderConfig's order and batchesAhead unless told otherwise", () => {
    expect(PROFILE_DEFAULTS.orders).toEqual([LOADER_DEFAULTS.order]);
    expect(PROFILE_DEFAULTS.batchesAhead).toBe(LOADER_DEFAULTS.batchesAhead);
  });

  it("the Loader class without an order visits samples in file order, as FFCV's Loader", async () => {
    expect(LOADER_DEFAULTS.libraryOrder).toBe('sequential');
    const loader = await Loader.open(file, { batchSize: 8, numWorkers: 1 });
    try {
      const seen: number[] = [];
      for await (const b of loader) seen.push(...Array.from(b.sampleIds));
      expect(seen).toEqual(Array.from({ length: N }, (_, i) => i));
    } finally {
      await loader.close();
    }
  });
});
