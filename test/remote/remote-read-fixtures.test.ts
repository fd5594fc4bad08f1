import { afterAll, beforeAll, describe, it } from 'vitest';
import { fixturePath } from '../helpers/fixtures.js';
import { expectFixtureOverUrls } from '../helpers/remote-fixture-reads.js';
import { fileBytes, startServers, type RemoteServers } from '../helpers/remote-servers.js';

/*
 * Slow tier (test/tiers.ts): the rest of the fixture x backend matrix. remote-read.test.ts
 * keeps a multi-page file (images_raw) and a one-page one (ints_floats) fast.
 */
const NAMES = ['images_jpg', 'ndarray', 'bytes_json'];
let srv: RemoteServers;
const saved = { ...process.env };

beforeAll(async () => {
  srv = await startServers(['data']);
  for (const n of NAMES) {
    await srv.put('data', `sets/${n}.beton`, fileBytes(fixturePath(n)));
    await srv.serve(`${n}.beton`, fileBytes(fixturePath(n)));
  }
  Object.assign(process.env, srv.env());
}, 60_000);

afterAll(async () => {
  process.env = saved;
  await srv?.stop();
});

describe('Reader over s3:// and http://, every fixture', () => {
  for (const n of NAMES) {
    it(`${n}: every sample equals the local file's, over S3 and HTTP`, async () => {
      await expectFixtureOverUrls(n, [`s3://data/sets/${n}.beton`, `${srv.http}/${n}.beton`]);
    }, 60_000);
  }
});
