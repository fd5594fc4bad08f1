/**
 * `beton check` benchmark: samples/s of checkDataset (every image decoded once, pixel and
 * perceptual hashes, outliers) on the synthetic ImageNet-like folder built into a .beton
 * (JPEGs passed through), at a quarter, half and all of the images, with 1 and 2 decode
 * workers; and the near-duplicate search alone on random 64-bit hashes at 10k-1M, to show
 * it grows about linearly (multi-index hashing), not quadratically.
 *
 *   npm run bench -- check [--quick] [--count 3000] [--reps 3] [--json FILE]
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parseBuildConfig, type BuildConfigInput } from '../core/api/build-config.js';
import { buildDataset } from '../core/app/build.js';
import { checkDataset } from '../core/app/check-dataset.js';
import { nearPairs } from '../core/app/check/near-duplicates.js';
import { ensureImageNetLike } from './generate-imagenet-like.js';
import { benchMain, intSetting, isEntryPoint, runAsScript, type BenchMain } from './lib/cli.js';
import { COMMON_OPTIONS, commonHelp, commonSettings, writeResult, type CommonSettings } from './lib/common-options.js';
import { benchScratchDir } from './lib/repo.js';
import { median, round } from './lib/stats.js';
import { renderTable } from './lib/table.js';

const REPS = { reps: 3, quickReps: 1 };
const HELP = `npm run bench -- check [options]
  --count N     images (default 3000; --quick 200)
${commonHelp(REPS)}`;

interface Config extends CommonSettings {
  count: number;
}

function parse(argv: string[]): Config | 'help' {
  const { values } = parseArgs({ args: argv, options: { ...COMMON_OPTIONS, count: { type: 'string' } } });
  if (values.help) return 'help';
  const common = commonSettings(values, REPS);
  return { ...common, count: intSetting(values.count, 'count', 'BENCH_COUNT', common.quick ? 200 : 3000) };
}

async function build(folder: string, out: string, n: number): Promise<void> {
  if (existsSync(out)) return;
  const cfg = parseBuildConfig({
    source: { type: 'image_folder', path: folder },
    output: out,
    range: [0, n],
    fields: [
      { name: 'image', type: 'rgb_image', writeMode: 'jpg', passThrough: true },
      { name: 'label', type: 'int' },
    ],
  } as BuildConfigInput);
  if (!cfg.ok) throw new Error(cfg.errors.join('\n'));
  await buildDataset(cfg.value);
}

/** A deterministic 32-bit generator (xorshift32). */
function hashes(n: number): Array<[number, number]> {
  let x = 2463534242;
  const next = (): number => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>>= 0);
  };
  return Array.from({ length: n }, () => [next(), next()] as [number, number]);
}

async function runBenchmark(cfg: Config): Promise<number> {
  const data = await ensureImageNetLike({ count: cfg.count });
  const dir = join(benchScratchDir(), `check-${cfg.count}`);
  mkdirSync(dir, { recursive: true });
  const sizes = [Math.floor(cfg.count / 4), Math.floor(cfg.count / 2), cfg.count];
  const rows: string[][] = [];
  const results: Array<{ samples: number; workers: number; seconds: number[]; samplesPerSec: number }> = [];
  for (const n of sizes) {
    const file = join(dir, `check-${n}.beton`);
    await build(data.root, file, n);
    for (const workers of [1, 2]) {
      const seconds: number[] = [];
      for (let r = 0; r < cfg.reps; r++) {
        const t0 = performance.now();
        await checkDataset(file, { numWorkers: workers, save: false });
        seconds.push((performance.now() - t0) / 1000);
      }
      const rate = n / median(seconds);
      results.push({ samples: n, workers, seconds, samplesPerSec: round(rate, 1) });
      rows.push([String(n), String(workers), median(seconds).toFixed(2), rate.toFixed(1)]);
    }
  }
  console.log(`beton check on ImageNet-like JPEGs (300-500 px), ${cfg.reps} repetition(s), medians`);
  console.log(renderTable(['samples', 'workers', 'median s', 'samples/s'], rows));

  // The near-duplicate search alone: time per hash should stay about flat as n grows.
  const searchSizes = cfg.quick ? [10_000, 100_000] : [10_000, 100_000, 1_000_000];
  const search = searchSizes.map((n) => {
    const h = hashes(n);
    const t0 = performance.now();
    nearPairs(h, 7);
    const s = (performance.now() - t0) / 1000;
    return { hashes: n, seconds: round(s, 3), microsPerHash: round((s / n) * 1e6, 2) };
  });
  console.log(
    renderTable(
      ['hashes', 'seconds', 'µs per hash'],
      search.map((s) => [String(s.hashes), String(s.seconds), String(s.microsPerHash)]),
    ),
  );
  const result = { bench: 'check', version: 1, count: cfg.count, reps: cfg.reps, check: results, nearDuplicateSearch: search };
  writeResult(result, cfg.jsonFile);
  return 0;
}

export const main: BenchMain = benchMain('check', HELP, parse, runBenchmark);

if (isEntryPoint(import.meta.url)) runAsScript(main);
