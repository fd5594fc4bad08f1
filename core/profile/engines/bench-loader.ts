import { RGB_IMAGE_IDENTITY } from '../../fields/rgb-image-field.js';
import { LoaderError } from '../../loader/errors.js';
import { Loader, type LoaderOptions } from '../../loader/loader.js';
import { waitsSince } from '../../loader/loader-stats.js';
import type { OrderName } from '../../loader/orders/index.js';
import { asBetonError, BetonError } from '../../format/errors.js';
import {
  CenterCropRGBImageDecoder,
  RandomHorizontalFlip,
  RandomResizedCropRGBImageDecoder,
  SimpleRGBImageDecoder,
  ToCHW,
  type PipelineStep,
} from '../../pipeline/spec.js';

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
  /** A default changed to fit the file (a batch larger than the dataset), for people (stderr). */
  onNote?: (message: string) => void;
  /** A remote file: page pool and disk cache (LoaderOptions.remote). */
  remote?: LoaderOptions['remote'];
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
  config: Required<Omit<BenchLoaderOptions, 'signal' | 'onEpoch' | 'onNote' | 'field' | 'seed' | 'remote'>> & { field: string };
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

/** The batch size bench-loader and profile use when none is given (capped at the dataset's size). */
export const DEFAULT_BATCH_SIZE = 256;

/** 'simple', 'rrc:SIZE' or 'center:SIZE' with SIZE a positive integer (the contract and the CLI check this). */
export const DECODER_SPEC = /^(simple|rrc:[1-9]\d*|center:[1-9]\d*)$/;

/** Parses 'simple' | 'rrc:SIZE' | 'center:SIZE' into a decoder step. */
export function parseDecoder(spec: string): PipelineStep {
  const [kind, size] = spec.split(':');
  const n = Number(size);
  if (kind === 'simple' && size === undefined) return SimpleRGBImageDecoder();
  if ((kind === 'rrc' || kind === 'center') && DECODER_SPEC.test(spec))
    return kind === 'rrc' ? RandomResizedCropRGBImageDecoder(n) : CenterCropRGBImageDecoder(n);
  throw new BetonError(
    'BAD_OPTIONS',
    `the decoder is simple, rrc:SIZE or center:SIZE with SIZE a positive integer (pixels), got "${spec}"`,
  );
}

/**
 * The batch size to run on a file of `numSamples`: the given one, which must fit (the
 * loader drops the last partial batch, so a larger one would measure nothing), or the
 * default capped at the dataset's size, saying so through `note`.
 */
export function fitBatchSize(
  file: string,
  numSamples: number,
  given: number | undefined,
  flag: string,
  note?: (message: string) => void,
): number {
  if (numSamples === 0)
    throw new BetonError('NO_SAMPLES', `${file} has no samples: there is nothing to load`, {
      hint: 'Rebuild it from a source with samples.',
    });
  if (given !== undefined) {
    if (given > numSamples) {
      throw new BetonError(
        'TOO_FEW_SAMPLES',
        `${file} has ${numSamples} samples, fewer than one batch of ${given} (the last partial batch is dropped, so nothing would be measured)`,
        {
          hint: `Pass ${flag} ${numSamples} or less.`,
        },
      );
    }
    return given;
  }
  if (numSamples >= DEFAULT_BATCH_SIZE) return DEFAULT_BATCH_SIZE;
  note?.(
    `${file} has ${numSamples} samples, fewer than the default batch of ${DEFAULT_BATCH_SIZE}: using batches of ${numSamples} (${flag} to choose)`,
  );
  return numSamples;
}

/** A failed allocation of the loader's batch buffers, as an OUT_OF_MEMORY that names the sizes; other errors unchanged. */
export function loaderMemoryError(e: unknown, batchSize: number, decoder: string): unknown {
  // The loader's own OUT_OF_MEMORY (the process cache's page pool) names its sizes already.
  if (e instanceof LoaderError || asBetonError(e)?.code !== 'OUT_OF_MEMORY') return e;
  const side = Number(decoder.split(':')[1]);
  const per = Number.isFinite(side)
    ? ` (${((batchSize * side * side * 3) / 2 ** 30).toFixed(1)} GiB per batch of ${side}×${side} RGB images)`
    : '';
  return new BetonError('OUT_OF_MEMORY', `the loader's batch buffers do not fit in memory: batch ${batchSize}, decoder ${decoder}${per}`, {
    cause: e,
    hint: "Lower the batch size or the decoder's output size.",
  });
}

/**
 * Runs one loader configuration for several epochs — decoder, optional flip, then ToCHW
 * (uint8, the layout a PyTorch model takes) — and reports images/s per epoch. Labels and
 * other fields are decoded too, as a training loop would.
 */
export async function benchLoader(file: string, o: BenchLoaderOptions = {}): Promise<BenchLoaderResult> {
  const { Reader } = await import('../../reader/reader.js');
  const r = await Reader.open(file);
  const imageFields = r.fields.filter((f) => f.field.type === RGB_IMAGE_IDENTITY.type).map((f) => f.name);
  const allFields = r.fields.map((f) => f.name);
  const numSamples = r.numSamples;
  r.close();
  const field = o.field ?? imageFields[0];
  if (!field) {
    throw new BetonError('NO_IMAGE_FIELD', `${file} has no image field to benchmark (its fields: ${allFields.join(', ') || 'none'})`, {
      hint: 'bench-loader measures image decoding: give it a file with an RGB image field (beton inspect lists the fields).',
    });
  }
  if (o.decoder !== undefined) parseDecoder(o.decoder);
  const cfg = {
    numWorkers: o.numWorkers ?? (await import('node:os')).availableParallelism(),
    batchSize: fitBatchSize(file, numSamples, o.batchSize, '--batch-size', o.onNote),
    order: o.order ?? 'random',
    osCache: o.osCache ?? true,
    decoder: o.decoder ?? 'rrc:160',
    flip: o.flip ?? true,
    fastDecode: o.fastDecode ?? false,
    epochs: Math.max(2, o.epochs ?? 3),
  };
  const steps: PipelineStep[] = [parseDecoder(cfg.decoder), ...(cfg.flip ? [RandomHorizontalFlip()] : []), ToCHW()];
  const t0 = performance.now();
  const opts: LoaderOptions = {
    batchSize: cfg.batchSize,
    numWorkers: cfg.numWorkers,
    order: cfg.order,
    osCache: cfg.osCache,
    fastDecode: cfg.fastDecode,
    seed: o.seed ?? 0,
    pipelines: { [field]: steps },
    signal: o.signal,
    ...(o.remote ? { remote: o.remote } : {}),
  };
  const loader = await Loader.open(file, opts).catch((e: unknown) => {
    throw loaderMemoryError(e, cfg.batchSize, cfg.decoder);
  });
  let startSeconds = 0;
  const results: EpochResult[] = [];
  try {
    for (let e = 0; e < cfg.epochs; e++) {
      const before = loader.stats();
      const te = performance.now();
      let images = 0;
      let batches = 0;
      for await (const b of loader) {
        if (e === 0 && batches === 0) startSeconds = (performance.now() - t0) / 1000;
        images += b.size;
        batches++;
      }
      const seconds = (performance.now() - te) / 1000;
      // Never a silent "0 img/s": an epoch that loads nothing is a failure to explain.
      if (images === 0)
        throw new BetonError(
          'NOTHING_LOADED',
          `epoch ${e} of ${file} loaded no images (batch ${cfg.batchSize}, ${loader.length} batches per epoch)`,
          { hint: 'Use a smaller batch size.' },
        );
      const waits = waitsSince(before, loader.stats());
      const res = {
        epoch: e,
        images,
        batches,
        seconds,
        imagesPerSec: images / seconds,
        batchesPerSec: batches / seconds,
        waitMsMedian: median(waits),
      };
      results.push(res);
      o.onEpoch?.(res);
    }
  } finally {
    await loader.close();
  }
  const [warmup, ...epochs] = results as [EpochResult, ...EpochResult[]];
  return { file, config: { ...cfg, field }, startSeconds, warmup, epochs, median_img_per_s: median(epochs.map((e) => e.imagesPerSec)) };
}
