import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LoaderOptions } from '../../core/loader/loader.js';
import { PICS_PAGE, servePics, twoEpochs } from '../helpers/remote-pics.js';
import { remoteTestFile } from '../helpers/remote-test-file.js';

/*
 * The slow tier's order matrix (test/tiers.ts): every order, the distributed ranks, over S3
 * and HTTP, each against the local file, with 2 decode workers. remote-loader.test.ts keeps
 * the small-pool case fast (a smaller file, 1 worker).
 */
const f = remoteTestFile(['data'], { prepare: (srv, dir) => servePics(srv, join(dir, 'pics.beton'), 240) });
const local = join(f.dir, 'pics.beton');

describe('Loader over s3:// and http://, every order', () => {
  const cases: Array<[string, Partial<LoaderOptions>]> = [
    ['sequential', { order: 'sequential' }],
    ['random', { order: 'random' }],
    ['quasi_random', { order: 'quasi_random' }],
    ['rank 0 of 2', { order: 'random', distributed: { rank: 0, worldSize: 2 } }],
    ['rank 1 of 2', { order: 'quasi_random', distributed: { rank: 1, worldSize: 2 } }],
    // A pool smaller than the file: pages are evicted and fetched again (here with 2 workers).
    ['random, small pool', { order: 'random', remote: { poolBytes: PICS_PAGE * 4 } }],
  ];
  for (const [name, opts] of cases) {
    it(`${name}: two epochs of batches equal the local file's, over S3 and HTTP`, async () => {
      const want = await twoEpochs(local, opts);
      expect(want.length).toBeGreaterThan(3);
      expect(await twoEpochs('s3://data/pics.beton', opts)).toEqual(want);
      expect(await twoEpochs(`${f.srv.http}/pics.beton`, opts)).toEqual(want);
    }, 120_000);
  }
});
