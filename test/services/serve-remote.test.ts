import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiEvent, FinishedEvent } from '../../core/api/contract.js';
import { IntField } from '../../core/fields/int-field.js';
import { NDArrayField } from '../../core/fields/ndarray-field.js';
import { datasetContentSha256 } from '../../core/reader/content-hash.js';
import { BetonService } from '../../core/services/beton-service.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';
import { RemoteAccess } from '../../core/services/remote-access.js';
import { fixturePath } from '../helpers/fixtures.js';
import { fileBytes, startServers, type RemoteServers } from '../helpers/remote-servers.js';
import { restoreEnv } from '../helpers/restore-env.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-serve-remote-'));
let srv: RemoteServers;
let service: BetonService;
const saved = { ...process.env };

beforeAll(async () => {
  srv = await startServers(['data', 'other']);
  await srv.put('data', 'sets/images_jpg.beton', fileBytes(fixturePath('images_jpg')));
  await srv.put('other', 'images_jpg.beton', fileBytes(fixturePath('images_jpg')));
  await srv.serve('images_jpg.beton', fileBytes(fixturePath('images_jpg')));
  // A wide unsigned array: only the file's own fields make the export write its pipeline out.
  const u16 = join(dir, 'u16.beton');
  await new DatasetWriter(u16, { a: new NDArrayField({ dtype: '<u2', shape: [2] }), n: new IntField() }, { numWorkers: 0 }).write([
    { a: new Uint16Array([1, 2]), n: 1 },
  ]);
  await srv.put('data', 'sets/u16.beton', fileBytes(u16));
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
  restoreEnv(saved);
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
    for (const path of ['s3://other/images_jpg.beton', 's3://data/setsX/images_jpg.beton', 'https://169.254.169.254/latest/meta-data']) {
      const r = (await service.call('datasets.inspect', { path })) as { ok: boolean; error?: { code: string } };
      expect(r.ok, path).toBe(false);
      expect(r.error?.code, path).toBe('FORBIDDEN');
    }
    // An ambiguous form is refused whatever the prefixes (no prefix would make it safe).
    const dots = (await service.call('datasets.inspect', { path: 's3://data/sets/../secret.beton' })) as { error?: { code: string } };
    expect(dots.error?.code).toBe('BAD_REQUEST');
    const none = new BetonService({ roots: [dir], host: 'server' });
    const r = (await none.call('datasets.inspect', { path: 's3://data/sets/images_jpg.beton' })) as {
      ok: boolean;
      error?: { message: string };
    };
    expect(r.ok).toBe(false);
    expect(r.error?.message).toMatch(/--allow-remote/);
    none.close();
  });

  it('profiles.start sweeps an allowed URL to a run with points; a URL outside the prefixes is FORBIDDEN before a job', async () => {
    const url = 's3://data/sets/images_jpg.beton';
    const events: ApiEvent[] = [];
    const off = service.on((e) => events.push(e));
    try {
      const plan = { workers: [1], batchSizes: [4], orders: ['sequential' as const], secondsPerPoint: 0.5, warmupBatches: 1 };
      const forbidden = (await service.call('profiles.start', { plan: { ...plan, file: 's3://other/images_jpg.beton' } })) as {
        ok: boolean;
        error?: { code: string };
      };
      expect(forbidden.error?.code).toBe('FORBIDDEN');
      expect(events.filter((e) => e.event === 'jobs:finished')).toHaveLength(0);
      const started = await service.call('profiles.start', { plan: { ...plan, file: url } });
      expect(started.ok, JSON.stringify(started)).toBe(true);
      const end = Date.now() + 100_000;
      let fin: FinishedEvent | undefined;
      while (!(fin = events.find((e) => e.event === 'jobs:finished')?.data as FinishedEvent | undefined) && Date.now() < end)
        await new Promise((r) => setTimeout(r, 50));
      expect(fin?.status, JSON.stringify(fin)).toBe('ok');
      const outcome = fin!.result as { runId: number; points: unknown[] };
      expect(outcome.points.length).toBeGreaterThan(0);
      const run = (await service.call('runs.get', { id: outcome.runId })) as {
        ok: boolean;
        value: { dataset: { path: string; contentSha256: string } };
      };
      expect(run.value.dataset.path).toBe(url);
      // Its identity in Runs is the local copy's (header, fields, allocation table: no data page read for it).
      expect(run.value.dataset.contentSha256).toBe(datasetContentSha256(fixturePath('images_jpg')));
    } finally {
      off();
    }
  }, 120_000);

  it('export.generate reads the fields of an allowed URL (wide unsigned arrays) and writes code naming it', async () => {
    const url = 's3://data/sets/u16.beton';
    const r = (await service.call('export.generate', {
      loader: { file: url, batchSize: 1, pipelines: { n: [{ decoder: 'int' }] } },
      format: 'python',
    })) as { ok: boolean; value: { text: string } };
    expect(r.ok, JSON.stringify(r)).toBe(true);
    expect(r.value.text).toContain(JSON.stringify(url));
    expect(r.value.text).toContain('"a": [NDArrayAsSignedDecoder(), ToTensor()]');
    // Outside the prefixes: nothing is fetched, the code comes from the config alone.
    const other = (await service.call('export.generate', {
      loader: { file: 's3://other/images_jpg.beton', batchSize: 1, pipelines: { n: [{ decoder: 'int' }] } },
      format: 'python',
    })) as { ok: boolean; value: { text: string } };
    expect(other.ok).toBe(true);
    expect(other.value.text).not.toContain('NDArrayAsSignedDecoder');
  }, 60_000);

  it('a bucket-only prefix covers the bucket; a bad prefix is refused', () => {
    expect(new RemoteAccess(['s3://data']).check('s3://data/a/b.beton')).toBe('s3://data/a/b.beton');
    expect(() => new RemoteAccess(['/local/folder'])).toThrow(/--allow-remote/);
  });
});
