import { usableCacheDir } from '../remote/disk-cache.js';
import { benchLoader } from '../profile/engines/bench-loader.js';
import { flagHelp } from './flags/flag-help.js';
import { parseFlags, switchFlag, valueFlag, type FlagTable } from './flags/flag-table.js';
import { integer, path, size } from './flags/parsers.js';
import { decoderValue, orderValue } from './loader-values.js';
import { UsageError } from './usage-error.js';

export const BENCH_LOADER_FLAGS = {
  workers: valueFlag('N', integer({ min: 1 }), 'decode threads (default: the cores)'),
  'batch-size': valueFlag('B', integer({ min: 1 }), 'samples per batch (default 256, at most the file)'),
  order: valueFlag('ORDER', orderValue, `${orderValue.expects} (default random)`),
  'no-os-cache': switchFlag("read pages into the loader's own cache instead of the OS page cache"),
  decoder: valueFlag('SPEC', decoderValue, 'simple, rrc:SIZE or center:SIZE (default rrc:160)'),
  flip: switchFlag('add a random horizontal flip'),
  'fast-decode': switchFlag("decode JPEG crops at a reduced DCT scale (not FFCV's pixels)"),
  epochs: valueFlag('E', integer({ min: 1 }), 'epochs to run, the first a warm-up (default 3)'),
  json: switchFlag('print one JSON object'),
  'cache-dir': valueFlag('DIR', path(), "a remote FILE's pages kept on local disk"),
  'cache-bytes': valueFlag('N', size({ min: 1 }), 'the --cache-dir limit (default 20 GiB)'),
} satisfies FlagTable;

export const BENCH_LOADER_HELP = `beton bench-loader FILE [--workers N] [--batch-size B]
      [--order sequential|random|quasi_random] [--no-os-cache]
      [--decoder simple|rrc:SIZE|center:SIZE] [--flip] [--fast-decode] [--epochs E] [--json]
      [--cache-dir DIR [--cache-bytes N]]

Loads FILE for E epochs (default 3) with decoder (default rrc:160), optional flip, then
ToCHW (uint8), and prints images/s and batches/s per epoch; the first epoch (warm-up)
is reported apart. --fast-decode decodes JPEG crops at a reduced DCT scale (faster, but
not FFCV's pixels; see docs/loader.md). --json prints one JSON object with "epochs" and "median_img_per_s".
FILE may be s3://bucket/key or https://… (docs/remote.md); --cache-dir keeps its fetched pages on
local disk for the next epoch or process (LRU, --cache-bytes limit, default 20 GiB;
BETON_REMOTE_CACHE_DIR sets it for every command).

${flagHelp(BENCH_LOADER_FLAGS)}`;

export async function benchLoaderCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, BENCH_LOADER_FLAGS);
  if (positionals.length !== 1) throw new UsageError('expected exactly one FILE');
  const order = values.order;
  const json = values.json ?? false;
  // Checked now: an unusable folder is one line before the file is opened, not a failure mid-epoch.
  if (values['cache-dir'] !== undefined) usableCacheDir(values['cache-dir']);
  const res = await benchLoader(positionals[0]!, {
    numWorkers: values.workers,
    batchSize: values['batch-size'],
    order,
    osCache: !values['no-os-cache'],
    decoder: values.decoder,
    flip: values.flip ?? false,
    fastDecode: values['fast-decode'] ?? false,
    epochs: values.epochs,
    ...(values['cache-dir'] !== undefined
      ? {
          remote: {
            cacheDir: values['cache-dir'],
            ...(values['cache-bytes'] !== undefined ? { cacheBytes: values['cache-bytes'] } : {}),
          },
        }
      : {}),
    // Even with --json: stderr is for people, stdout stays one JSON document.
    onNote: (m) => process.stderr.write(`note: ${m}\n`),
    onEpoch: json
      ? undefined
      : (e) =>
          process.stderr.write(
            `  epoch ${e.epoch}: ${e.imagesPerSec.toFixed(0)} img/s, ${e.batchesPerSec.toFixed(2)} batches/s, ${e.seconds.toFixed(2)} s, median wait ${e.waitMsMedian.toFixed(1)} ms${e.epoch === 0 ? ' (warm-up)' : ''}\n`,
          ),
  });
  if (json) {
    process.stdout.write(JSON.stringify({ ...res, epochs: res.epochs.map((e) => e.imagesPerSec), epoch_details: res.epochs }) + '\n');
    return 0;
  }
  const c = res.config;
  process.stdout.write(
    `${res.file}: ${c.decoder}${c.fastDecode ? ' (fast decode)' : ''}${c.flip ? ' + flip' : ''} + ToCHW, batch ${c.batchSize}, ${c.order}, ${c.osCache ? 'os cache' : 'process cache'}, ${c.numWorkers} worker${c.numWorkers === 1 ? '' : 's'}\n` +
      `  start ${res.startSeconds.toFixed(2)} s; warm-up ${res.warmup.imagesPerSec.toFixed(0)} img/s; median ${res.median_img_per_s.toFixed(0)} img/s over ${res.epochs.length} epochs\n`,
  );
  return 0;
}
