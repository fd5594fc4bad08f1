import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Reader } from '../../core/reader/reader.js';
import { cliInProcess } from '../helpers/cli-in-process.js';
import { fixturePath } from '../helpers/fixtures.js';
import { dumpAll, expectFixtureOverUrls } from '../helpers/remote-fixture-reads.js';
import { fileBytes, startServers, type RemoteServers } from '../helpers/remote-servers.js';

/*
 * A file of many pages (images_raw: 15) and one of a single page (ints_floats), over S3 and
 * HTTP; the other fixtures are in remote-read-fixtures.test.ts (slow tier).
 */
const NAMES = ['ints_floats', 'images_raw'];
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

describe('Reader over s3:// and http://', () => {
  for (const n of NAMES) {
    it(`${n}: every sample equals the local file's, over S3 and HTTP`, async () => {
      await expectFixtureOverUrls(n, [`s3://data/sets/${n}.beton`, `${srv.http}/${n}.beton`]);
    }, 60_000);
  }

  it('the open costs at most 3 requests, a dump one more per data page', async () => {
    const before = await srv.requests();
    const r = await Reader.open(`${srv.http}/images_raw.beton`);
    const afterOpen = await srv.requests();
    expect(afterOpen - before).toBeLessThanOrEqual(3);
    dumpAll(r);
    r.close();
    expect((await srv.requests()) - afterOpen).toBeLessThanOrEqual(r.numPages);
  });

  it('prefetch fetches the pages of the samples asked for, in parallel: reading them then makes no request', async () => {
    const r = await Reader.open(`${srv.http}/images_raw.beton`);
    try {
      const ids = Array.from({ length: r.numSamples }, (_, i) => i);
      await r.prefetch(ids);
      const before = await srv.requests();
      const got = dumpAll(r);
      expect(await srv.requests()).toBe(before);
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
