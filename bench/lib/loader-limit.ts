/**
 * Yardsticks of the loader benchmark, both single-threaded on the calling thread:
 *
 * - measureLimit: the bare native decode+crop speed per core, "the limit". The stored
 *   images are read once from the .beton (Reader.heapRef + readBytes) and kept in memory;
 *   each pass draws the same RandomResizedCrop parameters as the loader (randomResizedCrop
 *   with rngFor(seed, epoch, id, 0), the flip from stream 1), decodes with
 *   decodeCropResize(jpeg, dst, rect, S, S, {fastDct, strict}) (raw images of a 'smart' file:
 *   the native cropResizeRGB, as the decoder does) and the flip + HWC→CHW copy with the
 *   addon's mapPixels (the kernel the loader's fused stage runs). No workers, no messages,
 *   no per-sample allocation beyond the rng.
 *
 * - measureBreakdown: what one loader worker does per sample (decode-worker.ts runSample,
 *   for the image and the label output), rebuilt here from the same core pieces and timed
 *   segment by segment: metadata view, heap ref, rng creation, decoder, fused pixel stage,
 *   label, row views; interleaved with the limit's steps on the same samples. It shows
 *   where a worker's time goes without touching core/.
 */
import type { Worker } from 'node:worker_threads';
import { Reader } from '../../core/index.js';
import { createDecoder, fieldStats } from '../../core/loader/decoders.js';
import { heapAccess } from '../../core/loader/memory/heap-access.js';
import { IMAGE_MODE_RAW } from '../../core/fields/rgb-image-field.js';
import { cropResizeRGB } from '../../core/native/area-resize.js';
import { mapPixels } from '../../core/native/pixel-map.js';
import { decodeCropResize } from '../../core/native/turbo.js';
import { randomResizedCrop } from '../../core/pipeline/crop.js';
import { byteSize, elementCount, viewOf, type OutputArray } from '../../core/pipeline/dtypes.js';
import { planStages } from '../../core/pipeline/plan.js';
import { rngFor } from '../../core/pipeline/rng.js';
import { spawnWorker } from '../../core/workers/spawn-worker.js';
import {
  IntDecoder,
  RandomHorizontalFlip,
  RandomResizedCropRGBImageDecoder,
  ToCHW,
  type DecoderSpec,
  type OpSpec,
} from '../../core/pipeline/spec.js';

export const SCALE: readonly [number, number] = [0.08, 1];
export const RATIO: readonly [number, number] = [3 / 4, 4 / 3];

/** The benchmark's pipelines, as passed to Loader.open (image field first, so its rng streams are 0 and 1). */
export function loaderPipelines(size: number): { image: Array<DecoderSpec | OpSpec>; label: DecoderSpec[] } {
  return { image: [RandomResizedCropRGBImageDecoder(size, SCALE, RATIO), RandomHorizontalFlip(), ToCHW()], label: [IntDecoder()] };
}

export interface StoredImage {
  id: number;
  width: number;
  height: number;
  raw: boolean;
  bytes: Uint8Array;
}

/** Every stored image of field `image`, read once into memory. */
export function preloadImages(path: string): StoredImage[] {
  const reader = Reader.openSync(path);
  try {
    const f = reader.fieldIndex('image');
    const out: StoredImage[] = [];
    for (let i = 0; i < reader.numSamples; i++) {
      const meta = reader.fieldMetadata(i, f);
      const ref = reader.heapRef(i, f);
      if (!ref) throw new Error(`${path}: sample ${i} has no image bytes`);
      out.push({
        id: i,
        raw: meta.getUint8(0) === IMAGE_MODE_RAW,
        width: meta.getUint16(1, true),
        height: meta.getUint16(3, true),
        bytes: reader.readBytes(ref),
      });
    }
    return out;
  } finally {
    reader.close();
  }
}

/** Flip + HWC→CHW of packed RGB with the native kernel the loader uses. */
export function flipToChw(src: Uint8Array, dst: Uint8Array, H: number, W: number, flip: boolean): void {
  mapPixels(src, dst, null, { height: H, width: W, channels: 3, elemBytes: 1, flip, chw: true });
}

export interface LimitResult {
  images: number;
  /** decode + crop + flip/CHW copy, per thread: the limit. */
  imagesPerSec: number;
  /** decode + crop alone (without the flip/CHW copy). */
  decodeOnlyPerSec: number;
  /** Mean µs per image of each step. */
  us: { params: number; decode: number; copy: number; total: number };
}

export interface LimitOptions {
  size: number;
  seed: number;
  /** Each epoch is one pass over all images with that epoch's crops. */
  epochs: readonly number[];
  /** As the loader's decoder (true); false = the brief's plain {fastDct:true}. */
  strict: boolean;
}

/** Time spent in each step of the limit, summed over samples (ms). */
interface LimitTimes {
  params: number;
  decode: number;
  copy: number;
}

/**
 * The limit's per-sample work on one stored image, adding each step's time to `t`: the
 * loader's crop and flip draws, the native crop+resize (into `dst`) and flip/CHW (into `out`).
 */
function limitStep(
  im: StoredImage,
  epoch: number,
  o: Pick<LimitOptions, 'size' | 'seed' | 'strict'>,
  dst: Uint8Array,
  out: Uint8Array,
  t: LimitTimes,
): void {
  const S = o.size;
  const a = performance.now();
  const crop = randomResizedCrop(im.height, im.width, SCALE, RATIO, rngFor(o.seed, epoch, im.id, 0));
  const flip = rngFor(o.seed, epoch, im.id, 1).next() < 0.5;
  const rect = { x: crop.x, y: crop.y, w: crop.w, h: crop.h };
  const b = performance.now();
  if (im.raw) cropResizeRGB(im.bytes, im.width, im.height, rect, S, S, dst);
  else decodeCropResize(im.bytes, dst, rect, S, S, { fastDct: true, strict: o.strict });
  const c = performance.now();
  flipToChw(dst, out, S, S, flip);
  const d = performance.now();
  t.params += b - a;
  t.decode += c - b;
  t.copy += d - c;
}

export function measureLimit(images: readonly StoredImage[], o: LimitOptions): LimitResult {
  const dst = new Uint8Array(o.size * o.size * 3);
  const out = new Uint8Array(o.size * o.size * 3);
  const t: LimitTimes = { params: 0, decode: 0, copy: 0 };
  let n = 0;
  const t0 = performance.now();
  for (const epoch of o.epochs) {
    for (const im of images) {
      limitStep(im, epoch, o, dst, out, t);
      n++;
    }
  }
  const total = performance.now() - t0;
  return {
    images: n,
    imagesPerSec: (n / total) * 1000,
    decodeOnlyPerSec: (n / t.decode) * 1000,
    us: { params: (t.params / n) * 1000, decode: (t.decode / n) * 1000, copy: (t.copy / n) * 1000, total: (total / n) * 1000 },
  };
}

export interface ParallelLimitResult {
  threads: number;
  /** All threads together: images / slowest thread's time. */
  imagesPerSec: number;
  /** imagesPerSec / (threads × the single-thread limit measured just before on the main thread). */
  efficiency: number;
  perThread: number[];
}

/**
 * The limit on `threads` worker threads at once (each with its own copy of the images, all
 * started together): what the machine allows in parallel. On 2 vCPUs this is often well
 * below twice one thread (shared caches, memory bandwidth, a host's hyperthread siblings),
 * which bounds how linear any loader can be.
 */
export async function measureParallelLimit(
  path: string,
  threads: number,
  o: LimitOptions,
  singleThread: number,
): Promise<ParallelLimitResult> {
  const workers: Worker[] = Array.from({ length: threads }, () => spawnWorker('./limit-worker.js', import.meta.url, { path, options: o }));
  try {
    await Promise.all(
      workers.map(
        (w) =>
          new Promise<void>((resolve, reject) => {
            w.once('message', () => resolve());
            w.once('error', reject);
          }),
      ),
    );
    const results = await Promise.all(
      workers.map(
        (w) =>
          new Promise<{ result: LimitResult; ms: number }>((resolve, reject) => {
            w.once('message', resolve);
            w.once('error', reject);
            w.postMessage('go');
          }),
      ),
    );
    const images = results.reduce((s, r) => s + r.result.images, 0);
    const slowest = Math.max(...results.map((r) => r.ms));
    const imagesPerSec = (images / slowest) * 1000;
    return {
      threads,
      imagesPerSec,
      efficiency: imagesPerSec / (threads * singleThread),
      perThread: results.map((r) => r.result.imagesPerSec),
    };
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

export interface BreakdownResult {
  images: number;
  /**
   * Mean µs per sample of each segment of a loader worker's per-sample work; `total` is the
   * sum of the loader's segments (the limit's steps, timed in the same loop, excluded).
   */
  us: {
    metadata: number;
    heapRef: number;
    rng: number;
    decode: number;
    pixelStage: number;
    label: number;
    rowViews: number;
    total: number;
  };
  /** The limit's steps timed in the same loop, interleaved sample by sample with the loader's. */
  limit: LimitResult['us'];
  /** Name of the fused stage planned for the image (e.g. fused(random_horizontal_flip+to_chw)). */
  stage: string;
}

/**
 * One worker's per-sample work (decode-worker.ts runSample, both outputs) on this thread,
 * with a timer around each step; the file is memory-mapped as with osCache. In the same
 * loop, alternating which goes first, the limit's steps run on the same sample, so the two
 * columns share the machine's state (a neighbour's load shifts both alike).
 */
export function measureBreakdown(
  path: string,
  images: readonly StoredImage[],
  o: { size: number; seed: number; epochs: readonly number[]; batchSize: number; strict: boolean },
): BreakdownResult {
  const reader = Reader.openSync(path);
  try {
    const heap = heapAccess({ kind: 'os' }, path, reader.pageSize);
    const pipes = loaderPipelines(o.size);
    const fImage = reader.fieldIndex('image');
    const fLabel = reader.fieldIndex('label');
    const imgDecoder = createDecoder(pipes.image[0] as DecoderSpec, reader.fields[fImage]!.field, fieldStats(reader, fImage));
    const imgPlan = planStages(imgDecoder.output, pipes.image.slice(1) as OpSpec[], mapPixels);
    const lblDecoder = createDecoder(pipes.label[0]!, reader.fields[fLabel]!.field, fieldStats(reader, fLabel));
    const lblPlan = planStages(lblDecoder.output, []);
    const stage = imgPlan.stages[0];
    if (imgPlan.stages.length !== 1 || !stage)
      throw new Error(`expected one fused stage, got ${imgPlan.stages.map((s) => s.name).join(', ')}`);
    const scratch = viewOf(imgDecoder.output.dtype, new ArrayBuffer(byteSize(imgDecoder.output)), 0, elementCount(imgDecoder.output));
    const imgRow = byteSize(imgPlan.sampleOutput);
    const lblRow = byteSize(lblPlan.sampleOutput);
    const imgRing = new SharedArrayBuffer(o.batchSize * imgRow);
    const lblRing = new SharedArrayBuffer(o.batchSize * lblRow);
    const limDst = new Uint8Array(o.size * o.size * 3);
    const limOut = new Uint8Array(o.size * o.size * 3);
    const t = { metadata: 0, heapRef: 0, rng: 0, decode: 0, pixelStage: 0, label: 0, rowViews: 0 };
    const lim: LimitTimes = { params: 0, decode: 0, copy: 0 };
    let n = 0;
    const loaderStep = (id: number, epoch: number): void => {
      const k = id % o.batchSize;
      const a = performance.now();
      const row = viewOf(imgPlan.sampleOutput.dtype, imgRing, k * imgRow, elementCount(imgPlan.sampleOutput));
      const lrow = viewOf(lblPlan.sampleOutput.dtype, lblRing, k * lblRow, elementCount(lblPlan.sampleOutput));
      const b = performance.now();
      const meta = reader.fieldMetadata(id, fImage);
      const c = performance.now();
      const ref = reader.heapRef(id, fImage);
      const bytes = ref ? heap.bytes(ref.ptr, ref.size) : null;
      const d = performance.now();
      const rng0 = rngFor(o.seed, epoch, id, 0);
      const ctx = { sampleId: id, epoch, rng: rngFor(o.seed, epoch, id, 1) };
      const e = performance.now();
      imgDecoder.decode(meta, bytes, scratch as OutputArray, rng0);
      const f = performance.now();
      stage.run(scratch, row, ctx);
      const g = performance.now();
      // The label output: metadata, heap ref (none), its rng, the int decoder into the row.
      const lmeta = reader.fieldMetadata(id, fLabel);
      const lref = reader.heapRef(id, fLabel);
      lblDecoder.decode(lmeta, lref ? heap.bytes(lref.ptr, lref.size) : null, lrow, rngFor(o.seed, epoch, id, 64));
      const h = performance.now();
      t.rowViews += b - a;
      t.metadata += c - b;
      t.heapRef += d - c;
      t.rng += e - d;
      t.decode += f - e;
      t.pixelStage += g - f;
      t.label += h - g;
    };
    for (const epoch of o.epochs) {
      for (const im of images) {
        if ((im.id + epoch) % 2 === 0) {
          limitStep(im, epoch, o, limDst, limOut, lim);
          loaderStep(im.id, epoch);
        } else {
          loaderStep(im.id, epoch);
          limitStep(im, epoch, o, limDst, limOut, lim);
        }
        n++;
      }
    }
    const per = (ms: number): number => (ms / n) * 1000;
    const total = t.metadata + t.heapRef + t.rng + t.decode + t.pixelStage + t.label + t.rowViews;
    const limTotal = lim.params + lim.decode + lim.copy;
    return {
      images: n,
      stage: stage.name,
      us: {
        metadata: per(t.metadata),
        heapRef: per(t.heapRef),
        rng: per(t.rng),
        decode: per(t.decode),
        pixelStage: per(t.pixelStage),
        label: per(t.label),
        rowViews: per(t.rowViews),
        total: per(total),
      },
      limit: { params: per(lim.params), decode: per(lim.decode), copy: per(lim.copy), total: per(limTotal) },
    };
  } finally {
    reader.close();
  }
}
