import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalSample } from '../../core/reader/canonical.js';
import { Reader } from '../../core/reader/reader.js';
import { fixturePath } from '../helpers/fixtures.js';
import { fileBytes, startServers, type RemoteServers } from '../helpers/remote-servers.js';

const BETON = resolve(__dirname, '../../bin/beton.js');
const NAMES = ['images_jpg', 'ints_floats', 'ndarray', 'bytes_json', 'images_raw'];
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

const dumpAll = (r: Reader): unknown[] => Array.from({ length: r.numSamples }, (_, i) => canonicalSample(r, i));

describe('Reader over s3:// and http://', () => {
  for (const n of NAMES) {
    it(`${n}: every sample equals the local file's, over S3 and HTTP`, async () => {
      const local = await Reader.open(fixturePath(n));
      const want = dumpAll(local);
      local.close();
      for (const url of [`s3://data/sets/${n}.beton`, `${srv.http}/${n}.beton`]) {
        const r = await Reader.open(url);
        try {
          expect(r.path).toBe(url);
          expect(dumpAll(r)).toEqual(want);
        } finally {
          r.close();
        }
      }
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

  it('beton dump s3://… prints what beton dump of the local file prints', () => {
    const env = { ...process.env, ...srv.env() };
    const run = (f: string): ReturnType<typeof spawnSync> =>
      spawnSync('timeout', ['-k', '5', '120', process.execPath, BETON, 'dump', f], { env, encoding: 'utf8', maxBuffer: 1 << 28 });
    const local = run(fixturePath('ndarray'));
    const remote = run('s3://data/sets/ndarray.beton');
    expect(remote.status, String(remote.stderr)).toBe(0);
    expect(remote.stderr).toBe('');
    expect(remote.stdout).toBe(local.stdout);
  }, 120_000);
});
