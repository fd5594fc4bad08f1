/**
 * Loader img/s on a large .beton (multi-GiB: past one mapped window, and past 4 GiB when
 * scaled up) against a small file of the same images, in the same run — the cost of the
 * memory layer's windows (OS cache) and of page reads far into a file (process cache).
 *
 *   npm run bench -- loader large [--gib G] [--small-images N] [--rounds R] [--epochs E]
 *                                 [--workers W] [--batch-size B] [--quick]
 *
 * Both files are written by our DatasetWriter (raw 256×256 RGB images and an IntField
 * label), under .bench/loader-large/: the large one holds G GiB of images
 * (default 1.5, so it spans two 1 GiB windows; --gib 5 crosses 4 GiB, the size Node's
 * buffers stop at; check `df -h .bench` first), the small one N images (default 1500,
 * ~280 MiB, mapped whole). Pipeline: CenterCrop(160) on raw images + flip + CHW, random
 * order, W workers (default 2), batch B (default 128). Each round loads the small file then
 * the large one, for osCache on and off, 1 warm-up epoch + E timed (default 2) each; the
 * table shows median img/s and large/small (1.00: no cost for size). The large file stays
 * for the next run (delete .bench/loader-large to rebuild or to free the disk). The warm
 * epochs read from the OS page cache where the file fits in memory; a file larger than RAM
 * measures the disk instead.
 */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { IntField } from '../core/fields/int-field.js';
import { RGBImageField } from '../core/fields/rgb-image-field.js';
import { Loader } from '../core/loader/loader.js';
import { CenterCropRGBImageDecoder, RandomHorizontalFlip, ToCHW } from '../core/pipeline/spec.js';
import { DatasetWriter } from '../core/writer/dataset-writer.js';
import { benchMain, positiveInt, UsageError, type BenchMain } from './lib/cli.js';
import { benchScratchDir } from './lib/repo.js';
import { median, round } from './lib/stats.js';
import { renderTable } from './lib/table.js';

const SIDE = 256;
const IMAGE_BYTES = SIDE * SIDE * 3;

interface Config {
  gib: number;
  smallImages: number;
  rounds: number;
  epochs: number;
  workers: number;
  batchSize: number;
}

const HELP = `loader large [--gib G] [--small-images N] [--rounds R] [--epochs E] [--workers W] [--batch-size B] [--quick]
  Loader img/s on a G GiB file (default 1.5; --gib 5 to cross 4 GiB) vs an N-image file (default 1500),
  osCache on and off, R rounds (default 2) of 1 warm-up + E timed epochs (default 2).`;

function parse(argv: string[]): Config | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      gib: { type: 'string' },
      'small-images': { type: 'string' },
      rounds: { type: 'string' },
      epochs: { type: 'string' },
      workers: { type: 'string' },
      'batch-size': { type: 'string' },
      quick: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) return 'help';
  const quick = values.quick ?? false;
  const gib = values.gib === undefined ? (quick ? 1.25 : 1.5) : Number(values.gib);
  if (!Number.isFinite(gib) || gib <= 0 || gib > 1024)
    throw new UsageError(`--gib must be a number of GiB in (0, 1024], got "${values.gib}"`);
  return {
    gib,
    smallImages: values['small-images'] ? positiveInt(values['small-images'], '--small-images') : quick ? 600 : 1500,
    rounds: values.rounds ? positiveInt(values.rounds, '--rounds') : quick ? 1 : 2,
    epochs: values.epochs ? positiveInt(values.epochs, '--epochs') : quick ? 1 : 2,
    workers: values.workers ? positiveInt(values.workers, '--workers') : 2,
    batchSize: values['batch-size'] ? positiveInt(values['batch-size'], '--batch-size') : 128,
  };
}

/** Eight distinct noisy images, cycled: content does not matter to a raw crop, size does. */
function images(): Uint8Array[] {
  return Array.from({ length: 8 }, (_, v) => {
    const px = new Uint8Array(IMAGE_BYTES);
    let s = 0x9e3779b9 ^ v;
    for (let i = 0; i < px.length; i++) {
      s ^= s << 13;
      s ^= s >>> 17;
      s ^= s << 5;
      px[i] = s & 255;
    }
    return px;
  });
}

/** A file of `count` raw images, written once and reused while its size matches. */
async function ensureFile(path: string, count: number): Promise<string> {
  if (existsSync(path) && statSync(path).size >= count * IMAGE_BYTES) return path;
  const pool = images();
  const t0 = performance.now();
  function* samples(): Generator<{ image: { data: Uint8Array; width: number; height: number }; label: number }> {
    for (let i = 0; i < count; i++) yield { image: { data: pool[i % pool.length]!, width: SIDE, height: SIDE }, label: i % 1000 };
  }
  await new DatasetWriter(path, { image: new RGBImageField({ writeMode: 'raw' }), label: new IntField() }, { numWorkers: 0 }).write(
    samples(),
  );
  const gib = statSync(path).size / 2 ** 30;
  console.log(`wrote ${path}: ${count} images, ${gib.toFixed(2)} GiB in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return path;
}

/** img/s of each timed epoch (after one warm-up). */
async function epochs(file: string, osCache: boolean, cfg: Config): Promise<number[]> {
  const loader = await Loader.open(file, {
    batchSize: cfg.batchSize,
    numWorkers: cfg.workers,
    order: 'random',
    seed: 0,
    osCache,
    pipelines: { image: [CenterCropRGBImageDecoder([160, 160], 224 / 256), RandomHorizontalFlip(), ToCHW()] },
  });
  const out: number[] = [];
  try {
    for (let e = 0; e <= cfg.epochs; e++) {
      const t0 = performance.now();
      let n = 0;
      for await (const b of loader) n += b.size;
      if (e > 0) out.push(n / ((performance.now() - t0) / 1000));
    }
  } finally {
    await loader.close();
  }
  return out;
}

async function run(cfg: Config): Promise<number> {
  const dir = join(benchScratchDir(), 'loader-large');
  mkdirSync(dir, { recursive: true });
  const largeCount = Math.ceil((cfg.gib * 2 ** 30) / IMAGE_BYTES);
  const small = await ensureFile(join(dir, `small-${cfg.smallImages}.beton`), cfg.smallImages);
  const large = await ensureFile(join(dir, `large-${largeCount}.beton`), largeCount);
  const sizes = { small: statSync(small).size, large: statSync(large).size };
  const ips: Record<string, number[]> = {};
  for (let r = 0; r < cfg.rounds; r++) {
    for (const cache of ['on', 'off'] as const) {
      for (const [name, file] of [
        ['small', small],
        ['large', large],
      ] as const) {
        const got = await epochs(file, cache === 'on', cfg);
        (ips[`${name}/${cache}`] ??= []).push(...got);
        console.log(`[round ${r + 1}/${cfg.rounds}] ${name} osCache ${cache}: ${got.map((x) => x.toFixed(0)).join(' ')} img/s`);
      }
    }
  }
  const rows = (['on', 'off'] as const).map((cache) => {
    const s = median(ips[`small/${cache}`]!);
    const l = median(ips[`large/${cache}`]!);
    return [`osCache ${cache}`, s.toFixed(0), l.toFixed(0), (l / s).toFixed(2)];
  });
  console.log(
    `\nsmall: ${cfg.smallImages} images (${(sizes.small / 2 ** 30).toFixed(2)} GiB); large: ${largeCount} images (${(sizes.large / 2 ** 30).toFixed(2)} GiB); ` +
      `batch ${cfg.batchSize}, ${cfg.workers} workers, CenterCrop 160 + flip + CHW, random order; medians of ${cfg.rounds} × ${cfg.epochs} epochs\n`,
  );
  console.log(renderTable(['memory', 'small img/s', 'large img/s', 'large/small'], rows));
  console.log(
    JSON.stringify({
      bench: 'loader-large',
      version: 1,
      config: cfg,
      sizes,
      results: Object.fromEntries(
        Object.entries(ips).map(([k, v]) => [k, { median: round(median(v), 1), epochs: v.map((x) => round(x, 1)) }]),
      ),
    }),
  );
  return 0;
}

export const main: BenchMain = benchMain('loader large', HELP, parse, run);
