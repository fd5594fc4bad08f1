/**
 * One worker of the naive loader (see naive-loader.ts): builds whole batches as a
 * PyTorch Dataset + DataLoader worker would, without any dataset format. Per sample:
 * fs.readFile of the source JPEG, sharp metadata (the crop needs the size), the same
 * RandomResizedCrop parameters as the loader, extract → resize to S×S → flop (when flipped)
 * → raw RGB, then collate: HWC → CHW into this batch's buffer. The finished batch is
 * transferred (not copied) to the main thread; a fresh buffer is allocated per batch
 * (PyTorch's default collate allocates new tensors too).
 */
import { readFile } from 'node:fs/promises';
import { parentPort, workerData } from 'node:worker_threads';
import sharp from 'sharp';
import { randomResizedCrop } from '../../core/pipeline/crop.js';
import { rngFor } from '../../core/pipeline/rng.js';
import type { NaiveInit, NaiveReply, NaiveRequest } from './naive-loader.js';

const init = workerData as NaiveInit;
const S = init.size;
const SCALE: readonly [number, number] = [0.08, 1];
const RATIO: readonly [number, number] = [3 / 4, 4 / 3];
// One libvips thread per image: a "worker" is then one core, as a loader worker is.
sharp.concurrency(init.sharpConcurrency);

async function loadSample(id: number, epoch: number, images: Uint8Array, k: number): Promise<void> {
  const file = await readFile(init.paths[id]!);
  const img = sharp(file);
  const { width, height } = await img.metadata();
  if (!width || !height) throw new Error(`${init.paths[id]}: no size`);
  const crop = randomResizedCrop(height, width, SCALE, RATIO, rngFor(init.seed, epoch, id, 0));
  const flip = rngFor(init.seed, epoch, id, 1).next() < 0.5;
  let p = img.extract({ left: crop.x, top: crop.y, width: crop.w, height: crop.h }).resize(S, S, { fit: 'fill' });
  if (flip) p = p.flop();
  const hwc = await p.removeAlpha().raw().toBuffer();
  const P = S * S;
  const base = k * 3 * P;
  for (let i = 0, si = 0; i < P; i++, si += 3) {
    images[base + i] = hwc[si]!;
    images[base + P + i] = hwc[si + 1]!;
    images[base + 2 * P + i] = hwc[si + 2]!;
  }
}

async function handle(msg: NaiveRequest): Promise<void> {
  const t0 = performance.now();
  const n = msg.ids.length;
  const images = new Uint8Array(n * 3 * S * S);
  const labels = new BigInt64Array(n);
  try {
    for (let k = 0; k < n; k++) {
      const id = msg.ids[k]!;
      await loadSample(id, msg.epoch, images, k);
      labels[k] = BigInt(init.labels[id]!);
    }
    const reply: NaiveReply = {
      type: 'batch',
      batch: msg.batch,
      images: images.buffer,
      labels: labels.buffer,
      busyMs: performance.now() - t0,
    };
    parentPort!.postMessage(reply, [images.buffer, labels.buffer]);
  } catch (e) {
    parentPort!.postMessage({ type: 'error', batch: msg.batch, message: (e as Error).message } satisfies NaiveReply);
  }
}

// Requests are handled one after another (one image in flight per worker).
let queue: Promise<void> = Promise.resolve();
parentPort!.on('message', (msg: NaiveRequest) => {
  queue = queue.then(() => handle(msg));
});
parentPort!.postMessage({ type: 'ready' } satisfies NaiveReply);
