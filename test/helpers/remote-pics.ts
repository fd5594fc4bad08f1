/**
 * The remote loader tests' dataset and how they read it: varied JPEG and raw images on small
 * pages (many pages, several samples a page), and two epochs of a loader's batches as plain
 * arrays, so a loader over s3:// or http:// can be compared batch for batch with the local file.
 * Shared by remote-loader.test.ts (fast: one case) and remote-loader-orders.test.ts (every order).
 */
import { readFileSync } from 'node:fs';
import { IntField } from '../../core/fields/int-field.js';
import { RGBImageField } from '../../core/fields/rgb-image-field.js';
import { Loader, type LoaderOptions } from '../../core/loader/loader.js';
import { RandomHorizontalFlip, RandomResizedCropRGBImageDecoder } from '../../core/pipeline/spec.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';
import type { RemoteServers } from './remote-servers.js';

/** The page size of writePics' file: small, so even a small file spans many pages. */
export const PICS_PAGE = 16384;

/** Writes `count` small images (sizes and bytes varied by index) and their index as label. */
export async function writePics(path: string, count: number): Promise<void> {
  await new DatasetWriter(
    path,
    { image: new RGBImageField({ writeMode: 'proportion', jpegQuality: 90 }), label: new IntField() },
    { numWorkers: 0, pageSize: PICS_PAGE, allowSmallPages: true },
  ).write(
    Array.from({ length: count }, (_, i) => {
      const w = 20 + (i % 13);
      const h = 18 + (i % 7);
      const data = new Uint8Array(w * h * 3);
      for (let k = 0; k < data.length; k++) data[k] = (i * 31 + k * 7) & 255;
      return { image: { data, width: w, height: h }, label: i };
    }),
  );
}

export interface PlainBatch {
  ids: number[];
  image: number[];
  label: number[];
}

/** Two epochs of batches of 16 (random crops and flips, seed 7) from `path` with `opts` on top. */
export async function twoEpochs(path: string, opts: Partial<LoaderOptions>): Promise<PlainBatch[]> {
  const loader = await Loader.open(path, {
    batchSize: 16,
    numWorkers: 2,
    seed: 7,
    pipelines: { image: [RandomResizedCropRGBImageDecoder(12), RandomHorizontalFlip()] },
    ...opts,
  });
  const out: PlainBatch[] = [];
  try {
    for (let epoch = 0; epoch < 2; epoch++)
      for await (const b of loader)
        out.push({ ids: [...b.sampleIds], image: [...b.get('image').data].map(Number), label: [...b.get('label').data].map(Number) });
  } finally {
    await loader.close();
  }
  return out;
}

/** Writes `count` pictures at `path` (writePics) and puts the file on both servers as pics.beton. */
export async function servePics(srv: RemoteServers, path: string, count: number): Promise<void> {
  await writePics(path, count);
  const bytes = new Uint8Array(readFileSync(path));
  await srv.put('data', 'pics.beton', bytes);
  await srv.serve('pics.beton', bytes);
}
