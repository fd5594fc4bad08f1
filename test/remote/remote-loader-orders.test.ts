import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoaderOptions } from '../../core/loader/loader.js';
import { startServers, type RemoteServers } from '../helpers/remote-servers.js';
import { PICS_PAGE, twoEpochs, writePics } from '../helpers/remote-pics.js';

/*
 * The slow tier's order matrix (test/tiers.ts): every order, the distributed ranks, over S3
 * and HTTP, each against the local file, with 2 decode workers. remote-loader.test.ts keeps
 * the small-pool case fast (a smaller file, 1 worker).
 */
const dir = mkdtempSync(join(tmpdir(), 'beton-remote-loader-orders-'));
let srv: RemoteServers;
let local: string;
const saved = { ...process.env };

beforeAll(async () => {
  local = join(dir, 'pics.beton');
  await writePics(local, 240);
  srv = await startServers(['data']);
  const bytes = new Uint8Array(readFileSync(local));
  await srv.put('data', 'pics.beton', bytes);
  await srv.serve('pics.beton', bytes);
  Object.assign(process.env, srv.env());
}, 60_000);

afterAll(async () => {
  process.env = saved;
  await srv?.stop();
  rmSync(dir, { recursive: true, force: true });
});

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
      expect(await twoEpochs(`${srv.http}/pics.beton`, opts)).toEqual(want);
    }, 120_000);
  }
});
