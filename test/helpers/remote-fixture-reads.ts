/**
 * Reading a golden fixture (helpers/fixtures.ts) over URLs: every sample, in the canonical
 * dump (core/reader/canonical.ts), must equal the local file's, and the Reader must name the
 * URL as its path. Shared by remote-read.test.ts (fast) and remote-read-fixtures.test.ts (slow).
 */
import { expect } from 'vitest';
import { canonicalSample } from '../../core/reader/canonical.js';
import { Reader } from '../../core/reader/reader.js';
import { fixturePath } from './fixtures.js';
import { fileBytes, type RemoteServers } from './remote-servers.js';

/** Every sample of an open Reader, canonically. */
export const dumpAll = (r: Reader): unknown[] => Array.from({ length: r.numSamples }, (_, i) => canonicalSample(r, i));

/** Opens each URL (fixture `name` served there) and expects every sample to equal the local file's. */
export async function expectFixtureOverUrls(name: string, urls: readonly string[]): Promise<void> {
  const local = await Reader.open(fixturePath(name));
  const want = dumpAll(local);
  local.close();
  for (const url of urls) {
    const r = await Reader.open(url);
    try {
      expect(r.path).toBe(url);
      expect(dumpAll(r)).toEqual(want);
    } finally {
      r.close();
    }
  }
}

/** Puts each fixture on S3 at data/sets/NAME.beton and on the HTTP server at /NAME.beton. */
export async function serveFixtures(srv: RemoteServers, names: readonly string[]): Promise<void> {
  for (const n of names) {
    await srv.put('data', `sets/${n}.beton`, fileBytes(fixturePath(n)));
    await srv.serve(`${n}.beton`, fileBytes(fixturePath(n)));
  }
}
