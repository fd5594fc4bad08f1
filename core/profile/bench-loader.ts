import { Loader, type LoaderOptions } from '../loader/loader.js';
import type { OrderName } from '../loader/orders/index.js';
import { CenterCropRGBImageDecoder, RandomHorizontalFlip, RandomResizedCropRGBImageDecoder, SimpleRGBImageDecoder, ToCHW, type PipelineStep } from '../pipeline/spec.js';

export interface BenchLoaderOptions {
  numWorkers?: number;
  batchSize?: number;
  order?: OrderName;
  osCache?: boolean;
  /** 'simple', 'rrc:SIZE' or 'center:SIZE'. */
  decoder?: string;
  flip?: boolean;
  /** LoaderOptions.fastDecode: JPEG crops at a reduced DCT scale (not FFCV's pixels). */
  fastDecode?: boolean;
  epochs?: number;
  /** Field holding the images (default: the first image field). */
  field?: string;
  seed?: number;
  signal?: AbortSignal;
  onEpoch?: (e: EpochResult) => void;
}

export interface EpochResult {
  epoch: number;
  images: number;
  batches: number;
  seconds: number;
  imagesPerSec: number;
  batchesPerSec: number;
  /** Median time the consumer waited for a batch (ms). */
  waitMsMedian: number;
}

export interface BenchLoaderResult {
  file: string;
  config: Required<Omit<BenchLoaderOptions, 'signal' | 'onEpoch' | 'field' | 'seed'>> & { field: string };
  /** Seconds from Loader.open to the first batch. */
  startSeconds: number;
  /** The first epoch pays for warming caches; reported apart. */
  warmup: EpochResult;
  epochs: EpochResult[];
  median_img_per_s: number;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length === 0 ? 0 : s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** Parses 'simple' | 'rrc:SIZE' | 'center:SIZE' into a decoder step. */
export function parseDecoder(spec: string): PipelineStep {
  const [kind, size] = spec.split(':');
  const n = Number(size);
  if (kind === 'simple') return SimpleRGBImageDecoder();
  if ((kind === 'rrc' || kind === 'center') && Number.isInteger(n) && n > 0) return kind === 'rrc' ? RandomResizedCropRGBImageDecoder(n) : CenterCropRGBImageDecoder(n);
  throw new Error(`--decoder expects simple, rrc:SIZE or center:SIZE, got "${spec}"`);
}

/**
 * Runs one loader configuration for several epochs — decoder, optional flip, then ToCHW
 * (uint8, the layout a PyTorch model takes) — and reports images/s per epoch. Labels and
 * other fields are decoded too, as a training loop would.
 */
export async function benchLoader(file: string, o: BenchLoaderOptions = {}): Promise<BenchLoaderResult> {
  const cfg = {
    numWorkers: o.numWorkers ?? (await import('node:os')).availableParallelism(),
    batchSize: o.batchSize ?? 256,
    order: o.order ?? 'random',
    osCache: o.osCache ?? true,
    decoder: o.decoder ?? 'rrc:160',
    flip: o.flip ?? true,
    fastDecode: o.fastDecode ?? false,
    epochs: Math.max(2, o.epochs ?? 3),
  };
  const { Reader } = await import('../reader/reader.js');
  const r = await Reader.open(file);
  const field = o.field ?? r.fields.find((f) => f.field.type === 'rgb_image')?.name;
  r.close();
  if (!field) throw new Error(`${file} has no image field to benchmark`);
  const steps: PipelineStep[] = [parseDecoder(cfg.decoder), ...(cfg.flip ? [RandomHorizontalFlip()] : []), ToCHW()];
  const t0 = performance.now();
  const opts: LoaderOptions = { batchSize: cfg.batchSize, numWorkers: cfg.numWorkers, order: cfg.order, osCache: cfg.osCache, fastDecode: cfg.fastDecode, seed: o.seed ?? 0, pipelines: { [field]: steps }, signal: o.signal };
  const loader = await Loader.open(file, opts);
  let startSeconds = 0;
  const results: EpochResult[] = [];
  try {
    for (let e = 0; e < cfg.epochs; e++) {
      const before = loader.stats().waitMs.length;
      const te = performance.now();
      let images = 0;
      let batches = 0;
      for await (const b of loader) {
        if (e === 0 && batches === 0) startSeconds = (performance.now() - t0) / 1000;
        images += b.size;
        batches++;
      }
      const seconds = (performance.now() - te) / 1000;
      const waits = loader.stats().waitMs.slice(before);
      const res = { epoch: e, images, batches, seconds, imagesPerSec: images / seconds, batchesPerSec: batches / seconds, waitMsMedian: median(waits) };
      results.push(res);
      o.onEpoch?.(res);
    }
  } finally {
    await loader.close();
  }
  const [warmup, ...epochs] = results as [EpochResult, ...EpochResult[]];
  return { file, config: { ...cfg, field }, startSeconds, warmup, epochs, median_img_per_s: median(epochs.map((e) => e.imagesPerSec)) };
}
