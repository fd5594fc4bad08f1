import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BetonService } from '../../core/services/beton-service.js';
import { RemoteAccess } from '../../core/services/remote-access.js';
import { fixturePath } from '../helpers/fixtures.js';
import { fileBytes, startServers, type RemoteServers } from '../helpers/remote-servers.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-serve-remote-'));
let srv: RemoteServers;
let service: BetonService;
const saved = { ...process.env };

beforeAll(async () => {
  srv = await startServers(['data', 'other']);
  await srv.put('data', 'sets/images_jpg.beton', fileBytes(fixturePath('images_jpg')));
  await srv.put('other', 'images_jpg.beton', fileBytes(fixturePath('images_jpg')));
  await srv.serve('images_jpg.beton', fileBytes(fixturePath('images_jpg')));
  Object.assign(process.env, srv.env());
  service = new BetonService({
    roots: [dir],
    host: 'server',
    dbPath: join(dir, 'runs.sqlite'),
    remoteRoots: ['s3://data/sets', `${srv.http}/`],
  });
}, 60_000);

afterAll(async () => {
  service?.close();
  process.env = saved;
  await srv?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('beton serve --allow-remote', () => {
  it('opens a dataset under an allowed prefix: schema and previews, without downloading the file', async () => {
    for (const url of ['s3://data/sets/images_jpg.beton', `${srv.http}/images_jpg.beton`]) {
      const before = await srv.requests();
      const insp = (await service.call('datasets.inspect', { path: url })) as {
        ok: boolean;
        value: { numSamples: number; path: string; pageMap: unknown[] };
      };
      expect(insp.ok, JSON.stringify(insp)).toBe(true);
      expect(insp.value.numSamples).toBeGreaterThan(0);
      expect(insp.value.path).toBe(url);
      expect(insp.value.pageMap.length).toBeGreaterThan(0);
      const prev = (await service.call('datasets.preview', { path: url, start: 0, count: 2 })) as { ok: boolean };
      expect(prev.ok, JSON.stringify(prev)).toBe(true);
      // Over HTTP (counted): the open's GETs twice and the one page the two samples are on.
      if (url.startsWith('http')) expect((await srv.requests()) - before).toBeLessThanOrEqual(7);
    }
  }, 60_000);

  it('the sample detail view opens a sample of an allowed URL; the health check says it is local-only', async () => {
    const url = 's3://data/sets/images_jpg.beton';
    const sample = (await service.call('datasets.sample', { path: url, index: 1 })) as {
      ok: boolean;
      value: { index: number; path: string; fields: { value: { kind: string } }[]; duplicates: unknown };
    };
    expect(sample.ok, JSON.stringify(sample).slice(0, 300)).toBe(true);
    expect(sample.value).toMatchObject({ index: 1, path: url, duplicates: null });
    expect(sample.value.fields.some((f) => f.value.kind === 'image')).toBe(true);
    const forbidden = (await service.call('datasets.sample', { path: 's3://other/images_jpg.beton', index: 0 })) as {
      ok: boolean;
      error?: { code: string };
    };
    expect(forbidden.error?.code).toBe('FORBIDDEN');
    for (const run of [false, true]) {
      const check = (await service.call('datasets.check', { path: url, run })) as {
        ok: boolean;
        error?: { code: string; message: string };
      };
      expect(check.ok).toBe(false);
      expect(check.error?.code).toBe('BAD_REQUEST');
      expect(check.error?.message).toMatch(/local files only.*beton cp/);
    }
  }, 60_000);

  it('refuses URLs outside the prefixes, other schemes and dot segments, without a request', async () => {
    for (const path of [
      's3://other/images_jpg.beton',
      's3://data/setsX/images_jpg.beton',
      's3://data/sets/../secret.beton',
      'https://169.254.169.254/latest/meta-data',
    ]) {
      const r = (await service.call('datasets.inspect', { path })) as { ok: boolean; error?: { code: string } };
      expect(r.ok, path).toBe(false);
      expect(r.error?.code, path).toBe('FORBIDDEN');
    }
    const none = new BetonService({ roots: [dir], host: 'server' });
    const r = (await none.call('datasets.inspect', { path: 's3://data/sets/images_jpg.beton' })) as {
      ok: boolean;
      error?: { message: string };
    };
    expect(r.ok).toBe(false);
    expect(r.error?.message).toMatch(/--allow-remote/);
    none.close();
  });

  it('a bucket-only prefix covers the bucket; a bad prefix is refused', () => {
    expect(new RemoteAccess(['s3://data']).check('s3://data/a/b.beton')).toBe('s3://data/a/b.beton');
    expect(() => new RemoteAccess(['/local/folder'])).toThrow(/--allow-remote/);
  });
});
