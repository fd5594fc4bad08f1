import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Loader, type LoaderOptions } from '../../core/loader/loader.js';
import { RandomResizedCropRGBImageDecoder } from '../../core/pipeline/spec.js';
import { Reader } from '../../core/reader/reader.js';
import { PICS_PAGE, servePics, twoEpochs } from '../helpers/remote-pics.js';
import { remoteTestFile } from '../helpers/remote-test-file.js';

/*
 * The fast tier's case of the loader over URLs: random order with a pool smaller than the
 * file (pages evicted and fetched again), and the disk cache. Every other order and the
 * distributed ranks, with 2 workers, are in remote-loader-orders.test.ts (slow tier).
 */
// 96 images: enough pages for the small pool below to evict (asserted), few enough to be quick.
const f = remoteTestFile(['data'], { prepare: (srv, dir) => servePics(srv, join(dir, 'pics.beton'), 96) });
const local = join(f.dir, 'pics.beton');

describe('Loader over s3:// and http://', () => {
  it("random, small pool: two epochs of batches equal the local file's, over S3 and HTTP", async () => {
    // A pool of 4 pages, smaller than the file: pages are evicted and fetched again. One decode
    // worker (each costs a thread start); remote-loader-orders runs this case with two.
    const opts: Partial<LoaderOptions> = { order: 'random', numWorkers: 1, remote: { poolBytes: PICS_PAGE * 4 } };
    const reader = await Reader.open(local);
    expect(reader.numPages).toBeGreaterThan(6);
    reader.close();
    const want = await twoEpochs(local, opts);
    expect(want.length).toBeGreaterThan(3);
    expect(await twoEpochs('s3://data/pics.beton', opts)).toEqual(want);
    expect(await twoEpochs(`${f.srv.http}/pics.beton`, opts)).toEqual(want);
  }, 120_000);

  it('fetches each page once per epoch with the default pool, none the second epoch from the disk cache', async () => {
    const cacheDir = join(f.dir, 'cache');
    const url = `${f.srv.http}/pics.beton`;
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
