import { describe, it } from 'vitest';
import { expectFixtureOverUrls, serveFixtures } from '../helpers/remote-fixture-reads.js';
import { remoteTestFile } from '../helpers/remote-test-file.js';

/*
 * Slow tier (test/tiers.ts): the rest of the fixture x backend matrix. remote-read.test.ts
 * keeps a multi-page file (images_raw) and a one-page one (ints_floats) fast.
 */
const NAMES = ['images_jpg', 'ndarray', 'bytes_json'];
const f = remoteTestFile(['data'], { prepare: (srv) => serveFixtures(srv, NAMES) });

describe('Reader over s3:// and http://, every fixture', () => {
  for (const n of NAMES) {
    it(`${n}: every sample equals the local file's, over S3 and HTTP`, async () => {
      await expectFixtureOverUrls(n, [`s3://data/sets/${n}.beton`, `${f.srv.http}/${n}.beton`]);
    }, 60_000);
  }
});
