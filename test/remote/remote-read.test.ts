import { describe, expect, it } from 'vitest';
import { Reader } from '../../core/reader/reader.js';
import { cliInProcess } from '../helpers/cli-in-process.js';
import { fixturePath } from '../helpers/fixtures.js';
import { dumpAll, expectFixtureOverUrls, serveFixtures } from '../helpers/remote-fixture-reads.js';
import { remoteTestFile } from '../helpers/remote-test-file.js';

/*
 * A file of many pages (images_raw: 15) and one of a single page (ints_floats), over S3 and
 * HTTP; the other fixtures are in remote-read-fixtures.test.ts (slow tier).
 */
const NAMES = ['ints_floats', 'images_raw'];
const f = remoteTestFile(['data'], { prepare: (srv) => serveFixtures(srv, NAMES) });

describe('Reader over s3:// and http://', () => {
  for (const n of NAMES) {
    it(`${n}: every sample equals the local file's, over S3 and HTTP`, async () => {
      await expectFixtureOverUrls(n, [`s3://data/sets/${n}.beton`, `${f.srv.http}/${n}.beton`]);
    }, 60_000);
  }

  it('the open costs at most 3 requests, a dump one more per data page', async () => {
    const before = await f.srv.requests();
    const r = await Reader.open(`${f.srv.http}/images_raw.beton`);
    const afterOpen = await f.srv.requests();
    expect(afterOpen - before).toBeLessThanOrEqual(3);
    dumpAll(r);
    r.close();
    expect((await f.srv.requests()) - afterOpen).toBeLessThanOrEqual(r.numPages);
  });

  it('prefetch fetches the pages of the samples asked for, in parallel: reading them then makes no request', async () => {
    const r = await Reader.open(`${f.srv.http}/images_raw.beton`);
    try {
      const ids = Array.from({ length: r.numSamples }, (_, i) => i);
      await r.prefetch(ids);
      const before = await f.srv.requests();
      const got = dumpAll(r);
      expect(await f.srv.requests()).toBe(before);
      const local = await Reader.open(fixturePath('images_raw'));
      expect(got).toEqual(dumpAll(local));
      local.close();
    } finally {
      r.close();
    }
  });

  it('beton dump s3://… prints what beton dump of the local file prints', async () => {
    // In this process (core/cli/main.ts): the same stdout and exit code, no Node start.
    const local = await cliInProcess('dump', fixturePath('images_raw'));
    const remote = await cliInProcess('dump', 's3://data/sets/images_raw.beton');
    expect(remote.code, remote.err).toBe(0);
    expect(remote.err).toBe('');
    expect(remote.out).toBe(local.out);
  }, 120_000);
});
