/**
 * Merge benchmark: `mergeDatasets` (what `beton merge` runs) on N shards of a few hundred
 * MB, next to copying the same bytes with coreutils: `cp` of a file the size of the merged
 * output, `cp` followed by `sync FILE` (merge fsyncs its output before the rename, cp does
 * not), and `cat` of the shards into one file (a concatenation that rewrites nothing).
 * All inputs are in the page cache (the first repetition warms it); a global `sync`, not
 * timed, runs before every measurement so one run's writeback does not bill the next.
 *
 *   npm run bench -- merge [--quick] [--mb 300] [--shards 3] [--reps 5] [--keep] [--json FILE]
 *
 * Prints a table of medians (seconds and GB/s, GB = 1e9 bytes of output), then one JSON
 * line ({"bench":"merge",...}) with every repetition.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BytesField } from '../core/fields/bytes-field.js';
import { IntField } from '../core/fields/int-field.js';
import { DatasetWriter } from '../core/writer/dataset-writer.js';
import { mergeDatasets } from '../core/writer/merge.js';
import { benchMain, intSetting, isEntryPoint, runAsScript, UsageError, type BenchMain } from './lib/cli.js';
import { COMMON_OPTIONS, commonHelp, commonSettings, writeResult, type CommonSettings } from './lib/common-options.js';
import { benchScratchDir } from './lib/repo.js';
import { median, round } from './lib/stats.js';
import { renderTable } from './lib/table.js';

const REPS = { reps: 5, quickReps: 1 };
const HELP = `npm run bench -- merge [options]
  --mb N        total size of the shards in MB (default 300; --quick 40)
  --shards N    how many shards (default 3)
  --keep        keep the generated shards under .bench/ for the next run (default: kept; --no-keep removes them)
${commonHelp(REPS)}`;

/** Bytes per sample: ~100 KB, an ImageNet-sized JPEG. */
const OBJECT_BYTES = 100_000;

interface Config extends CommonSettings {
  mb: number;
  shards: number;
  keep: boolean;
}

function parse(argv: string[]): Config | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      ...COMMON_OPTIONS,
      mb: { type: 'string' },
      shards: { type: 'string' },
      keep: { type: 'boolean' },
      'no-keep': { type: 'boolean' },
    },
  });
  if (values.help) return 'help';
  const common = commonSettings(values, REPS);
  const cfg = {
    ...common,
    mb: intSetting(values.mb, 'mb', 'BENCH_MERGE_MB', common.quick ? 40 : 300),
    shards: intSetting(values.shards, 'shards', 'BENCH_MERGE_SHARDS', 3),
    keep: values['no-keep'] !== true,
  };
  if (cfg.mb * 1e6 < cfg.shards * OBJECT_BYTES) throw new UsageError('--mb is too small for that many shards');
  return cfg;
}

/** Incompressible-looking bytes, cheaply (xorshift32): content does not matter to a copy, but zeros could flatter a filesystem. */
function fill(buf: Uint8Array, seed: number): void {
  const words = new Uint32Array(buf.buffer, buf.byteOffset, buf.byteLength >>> 2);
  let x = (seed * 2654435761) >>> 0 || 1;
  for (let i = 0; i < words.length; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    words[i] = x;
  }
}

/** The shards (an int label and a ~100 KB bytes object per sample), generated once per size. */
async function ensureShards(cfg: Config): Promise<string[]> {
  const dir = join(benchScratchDir(), `merge-${cfg.mb}mb-${cfg.shards}`);
  mkdirSync(dir, { recursive: true });
  const perShard = Math.floor((cfg.mb * 1e6) / OBJECT_BYTES / cfg.shards);
  const paths: string[] = [];
  for (let s = 0; s < cfg.shards; s++) {
    const p = join(dir, `shard-${String(s).padStart(5, '0')}-of-${String(cfg.shards).padStart(5, '0')}.beton`);
    paths.push(p);
    if (existsSync(p)) continue;
    process.stderr.write(`generating ${p} (${perShard} samples)\n`);
    const samples = function* (): Generator<Record<string, unknown>> {
      for (let i = 0; i < perShard; i++) {
        const blob = new Uint8Array(OBJECT_BYTES);
        fill(blob, s * perShard + i + 1);
        yield { label: BigInt(i % 1000), blob };
      }
    };
    await new DatasetWriter(p, { label: new IntField(), blob: new BytesField() }, { numWorkers: 0, numSamples: perShard }).write(samples());
  }
  return paths;
}

const sh = (cmd: string, args: string[]): void => {
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status ?? r.signal})`);
};

async function timed(fn: () => Promise<void> | void): Promise<number> {
  sh('sync', []);
  const t0 = performance.now();
  await fn();
  return (performance.now() - t0) / 1000;
}

async function runBenchmark(cfg: Config): Promise<number> {
  const shards = await ensureShards(cfg);
  const dir = join(benchScratchDir(), `merge-${cfg.mb}mb-${cfg.shards}`);
  const merged = join(dir, 'merged.beton');
  const copy = join(dir, 'copy.beton');
  const catted = join(dir, 'cat.bin');
  const rm = (p: string): void => {
    if (existsSync(p)) unlinkSync(p);
  };
  rm(merged);
  // Warm the page cache with the inputs and produce the file cp copies.
  await mergeDatasets(shards, merged);
  const bytes = statSync(merged).size;
  const kinds = ['merge', 'cp', 'cp + sync FILE', 'cat shards >'] as const;
  const runs: Record<(typeof kinds)[number], number[]> = { merge: [], cp: [], 'cp + sync FILE': [], 'cat shards >': [] };
  for (let rep = 0; rep < cfg.reps; rep++) {
    // Rotate the order so drift (other processes, writeback) spreads over all of them.
    for (let j = 0; j < kinds.length; j++) {
      const kind = kinds[(j + rep) % kinds.length]!;
      if (kind === 'merge') {
        const out = join(dir, 'merge-out.beton');
        rm(out);
        runs.merge.push(await timed(() => mergeDatasets(shards, out).then(() => undefined)));
        rm(out);
      } else if (kind === 'cp') {
        rm(copy);
        runs.cp.push(await timed(() => sh('cp', [merged, copy])));
        rm(copy);
      } else if (kind === 'cp + sync FILE') {
        rm(copy);
        runs[kind].push(await timed(() => sh('sh', ['-c', 'cp "$1" "$2" && sync "$2"', 'sh', merged, copy])));
        rm(copy);
      } else {
        rm(catted);
        runs[kind].push(await timed(() => sh('sh', ['-c', 'f="$1"; shift; cat "$@" > "$f"', 'sh', catted, ...shards])));
        rm(catted);
      }
    }
  }
  const gbps = (s: number): number => bytes / 1e9 / s;
  const mergeMedian = median(runs.merge);
  const rows = kinds.map((k) => {
    const m = median(runs[k]);
    return [k, m.toFixed(3), gbps(m).toFixed(2), (m / mergeMedian).toFixed(2)];
  });
  console.log(`merge of ${cfg.shards} shards, ${(bytes / 1e6).toFixed(0)} MB output, ${cfg.reps} repetition(s), inputs in the page cache`);
  console.log(renderTable(['operation', 'median s', 'GB/s', 'time / merge'], rows));
  const result = {
    bench: 'merge',
    version: 1,
    bytes,
    shards: cfg.shards,
    reps: cfg.reps,
    seconds: runs,
    medianGBps: Object.fromEntries(kinds.map((k) => [k, round(gbps(median(runs[k])), 3)])),
  };
  writeResult(result, cfg.jsonFile);
  rm(merged);
  if (!cfg.keep) rmSync(dir, { recursive: true, force: true });
  return 0;
}

export const main: BenchMain = benchMain('merge', HELP, parse, runBenchmark);

if (isEntryPoint(import.meta.url)) runAsScript(main);
