/**
 * The process cache's pool when it cannot fit (issue 19, item 2): a LoaderError
 * OUT_OF_MEMORY that names the page size, the pages one batch needs and what to do, instead
 * of V8's "Invalid typed array length" relabelled as "(0.0 GiB per batch)". The machine's
 * memory is faked small so the limit is reached with a tiny file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type * as OS from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { BytesField } from '../../../core/fields/bytes-field.js';
import { LoaderError } from '../../../core/loader/errors.js';
import { Loader } from '../../../core/loader/loader.js';
import { loaderMemoryError } from '../../../core/profile/engines/bench-loader.js';
import { DatasetWriter } from '../../../core/writer/dataset-writer.js';

vi.mock('node:os', async (importOriginal) => {
  const os = await importOriginal<typeof OS>();
  return { ...os, totalmem: () => 64 * 1024 };
});

const dir = mkdtempSync(join(tmpdir(), 'beton-pool-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('process cache pool limits', () => {
  it('a pool larger than the machine is an OUT_OF_MEMORY naming the pages, with the OS cache as the way out', async () => {
    const file = join(dir, 'f.beton');
    await new DatasetWriter(file, { blob: new BytesField() }, { numWorkers: 0, pageSize: 32768, allowSmallPages: true }).write(
      Array.from({ length: 12 }, (_, i) => ({ blob: new Uint8Array(30000).fill(i) })),
    );
    const err = await Loader.open(file, { batchSize: 4, numWorkers: 1, osCache: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LoaderError);
    expect((err as LoaderError).code).toBe('OUT_OF_MEMORY');
    const msg = (err as Error).message;
    expect(msg).toContain(file);
    expect(msg).toMatch(/page pool of 13 pages of 32\.0 KiB \(416\.0 KiB;/);
    expect(msg).toMatch(/one batch of 4 may need 5 pages, 160\.0 KiB\)/);
    expect(msg).not.toMatch(/[ (]0\.0 /);
    expect(msg).toMatch(/osCache: true/);
    // The profiler's relabelling of allocation failures leaves the loader's own message alone.
    expect(loaderMemoryError(err, 4, 'center:224')).toBe(err);
  });
});
