import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IntField } from '../../core/fields/int-field.js';
import { RGBImageField } from '../../core/fields/rgb-image-field.js';
import { Loader, type LoaderOptions } from '../../core/loader/loader.js';
import { RandomHorizontalFlip, RandomResizedCropRGBImageDecoder } from '../../core/pipeline/spec.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';
import { startServers, type RemoteServers } from '../helpers/remote-servers.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-remote-loader-'));
let srv: RemoteServers;
let local: string;
const saved = { ...process.env };

beforeAll(async () => {
  local = join(dir, 'pics.beton');
  // Varied JPEG and raw images on small pages: many pages, several samples per page.
  await new DatasetWriter(
    local,
    { image: new RGBImageField({ writeMode: 'proportion', jpegQuality: 90 }), label: new IntField() },
    { numWorkers: 0, pageSize: 16384, allowSmallPages: true },
  ).write(
    Array.from({ length: 240 }, (_, i) => {
      const w = 20 + (i % 13);
      const h = 18 + (i % 7);
      const data = new Uint8Array(w * h * 3);
      for (let k = 0; k < data.length; k++) data[k] = (i * 31 + k * 7) & 255;
      return { image: { data, width: w, height: h }, label: i };
    }),
  );
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

async function batches(path: string, opts: Partial<LoaderOptions>): Promise<Array<{ ids: number[]; image: number[]; label: number[] }>> {
  const loader = await Loader.open(path, {
    batchSize: 16,
    numWorkers: 2,
    seed: 7,
    pipelines: { image: [RandomResizedCropRGBImageDecoder(12), RandomHorizontalFlip()] },
    ...opts,
  });
  const out: Array<{ ids: number[]; image: number[]; label: number[] }> = [];
  try {
    for (let epoch = 0; epoch < 2; epoch++)
      for await (const b of loader)
        out.push({ ids: [...b.sampleIds], image: [...b.get('image').data].map(Number), label: [...b.get('label').data].map(Number) });
  } finally {
    await loader.close();
  }
  return out;
}

describe('Loader over s3:// and http://', () => {
  const cases: Array<[string, Partial<LoaderOptions>]> = [
    ['sequential', { order: 'sequential' }],
    ['random', { order: 'random' }],
    ['quasi_random', { order: 'quasi_random' }],
    ['rank 0 of 2', { order: 'random', distributed: { rank: 0, worldSize: 2 } }],
    ['rank 1 of 2', { order: 'quasi_random', distributed: { rank: 1, worldSize: 2 } }],
    // A pool smaller than the file: pages are evicted and fetched again.
    ['random, small pool', { order: 'random', remote: { poolBytes: 16384 * 4 } }],
  ];
  for (const [name, opts] of cases) {
    it(`${name}: two epochs of batches equal the local file's, over S3 and HTTP`, async () => {
      const want = await batches(local, opts);
      expect(want.length).toBeGreaterThan(3);
      expect(await batches('s3://data/pics.beton', opts)).toEqual(want);
      expect(await batches(`${srv.http}/pics.beton`, opts)).toEqual(want);
    }, 120_000);
  }

  it('fetches each page once per epoch with the default pool, none the second epoch from the disk cache', async () => {
    const cacheDir = join(dir, 'cache');
    const url = `${srv.http}/pics.beton`;
    const pipelines = { image: [RandomResizedCropRGBImageDecoder(12)] };
    const first = await Loader.open(url, { batchSize: 16, numWorkers: 1, order: 'random', seed: 1, pipelines, remote: { cacheDir } });
    const pages = first.reader.numPages;
    const stats = first.reader.remote!.client.stats;
    const opened = stats.bytes;
    for await (const _ of first);
    expect(first.stats().pagesRead).toBe(pages);
    // An epoch fetches the data pages once: no more bytes than the file holds.
    expect(stats.bytes - opened).toBeLessThanOrEqual(first.reader.fileSize);
    await first.close();
    // Another loader (as another process would) finds every page in the disk cache.
    const second = await Loader.open(url, { batchSize: 16, numWorkers: 1, order: 'random', seed: 2, pipelines, remote: { cacheDir } });
    const before = second.reader.remote!.client.stats.requests;
    for await (const _ of second);
    expect(second.stats().pagesRead).toBe(0);
    expect(second.reader.remote!.client.stats.requests).toBe(before);
    await second.close();
  }, 120_000);
});
