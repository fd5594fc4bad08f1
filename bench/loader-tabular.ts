/**
 * Loader overhead at scale: a file of 1,281,167 small records (an int and a float, built
 * from a CSV — ImageNet's sample count), random order, batch 256, 2 workers. Image
 * datasets hide per-batch costs behind decoding; this one shows them.
 *
 *   npm run bench -- loader tabular [--rows N] [--rounds R] [--epochs E] [--workers W] [--batch-size B]
 *
 * Each round runs our Loader and FFCV's (the reference installed for /usr/bin/python3),
 * alternating, each in a fresh process: open time, time to the first batch, seconds per
 * epoch (the first apart). Prints medians and ours/FFCV ratios (> 1: we are slower).
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { benchMain, positiveInt, type BenchMain } from './lib/cli.js';
import { benchScratchDir, repoRoot } from './lib/repo.js';
import { median, round } from './lib/stats.js';
import { renderTable } from './lib/table.js';

const PYTHON = process.env.BETON_FFCV_PYTHON ?? '/usr/bin/python3';

export interface TabularConfig {
  rows: number;
  rounds: number;
  epochs: number;
  workers: number;
  batchSize: number;
}

export interface TabularRun {
  openMs: number;
  firstBatchMs: number;
  epochs: number[];
}

const HELP = `loader tabular [--rows N] [--rounds R] [--epochs E] [--workers W] [--batch-size B]
  Our Loader vs FFCV's on N int+float records (default 1281167), random order, alternating
  fresh processes, R rounds (default 3) of E epochs (default 4).`;

function parse(argv: string[]): TabularConfig | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      rows: { type: 'string' },
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
  return {
    rows: values.rows ? positiveInt(values.rows, '--rows') : quick ? 100_000 : 1_281_167,
    rounds: values.rounds ? positiveInt(values.rounds, '--rounds') : quick ? 1 : 3,
    epochs: values.epochs ? positiveInt(values.epochs, '--epochs') : quick ? 2 : 4,
    workers: values.workers ? positiveInt(values.workers, '--workers') : 2,
    batchSize: values['batch-size'] ? positiveInt(values['batch-size'], '--batch-size') : 256,
  };
}

/** The CSV and the .beton built from it by `beton build` (kept in .bench/ between runs). */
export async function ensureTable(rows: number): Promise<string> {
  const dir = join(benchScratchDir(), 'tabular');
  mkdirSync(dir, { recursive: true });
  const csv = join(dir, `records-${rows}.csv`);
  const beton = join(dir, `records-${rows}.beton`);
  if (existsSync(beton)) return beton;
  if (!existsSync(csv)) {
    const out = createWriteStream(csv + '.tmp');
    out.write('label,value\n');
    let chunk = '';
    for (let i = 0; i < rows; i++) {
      chunk += `${(i * 7919) % 1000},${((i * 2654435761) % 1e6) / 1e3}\n`;
      if (chunk.length > 1 << 20) {
        if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
        chunk = '';
      }
    }
    out.end(chunk);
    await new Promise<void>((r) => out.once('finish', () => r()));
    renameSync(csv + '.tmp', csv);
  }
  const r = spawnSync(process.execPath, [join(repoRoot(), 'bin/beton.js'), 'build', csv, '-o', beton], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (r.status !== 0) throw new Error(`beton build ${csv} failed (exit ${r.status})`);
  return beton;
}

const OURS = (lib: string, file: string, c: TabularConfig): string => `
import { Loader } from ${JSON.stringify(lib)};
const t0 = performance.now();
const loader = await Loader.open(${JSON.stringify(file)}, { batchSize: ${c.batchSize}, numWorkers: ${c.workers}, order: 'random', seed: 0 });
const openMs = performance.now() - t0;
let first = 0;
const epochs = [];
for (let e = 0; e < ${c.epochs}; e++) {
  const te = performance.now();
  for await (const b of loader) if (!first) first = performance.now() - t0;
  epochs.push((performance.now() - te) / 1000);
}
console.log(JSON.stringify({ openMs, firstBatchMs: first, epochs }));
`;

export function runOurs(file: string, c: TabularConfig): TabularRun {
  const script = join(benchScratchDir(), 'tabular', 'ours.mjs');
  writeFileSync(script, OURS(join(repoRoot(), 'dist/core/index.js'), file, c));
  const r = spawnSync(process.execPath, [script], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`our loader failed:\n${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as TabularRun;
}

export function runFfcv(file: string, c: TabularConfig): TabularRun | null {
  const r = spawnSync(
    PYTHON,
    [join(repoRoot(), 'bench/py/ffcv_tabular.py'), file, String(c.epochs), String(c.batchSize), String(c.workers)],
    { encoding: 'utf8', cwd: '/' },
  );
  if (r.error || r.status !== 0) {
    process.stderr.write(`FFCV not run (${r.error?.message ?? r.stderr.trim().split('\n').pop()}); install it: pip install ffcv\n`);
    return null;
  }
  const j = JSON.parse(r.stdout.trim().split('\n').pop()!) as { open_ms: number; first_batch_ms: number; epochs_s: number[] };
  return { openMs: j.open_ms, firstBatchMs: j.first_batch_ms, epochs: j.epochs_s };
}

async function run(c: TabularConfig): Promise<number> {
  const file = await ensureTable(c.rows);
  const ours: TabularRun[] = [];
  const ffcv: TabularRun[] = [];
  for (let k = 0; k < c.rounds; k++) {
    // Alternate who goes first, so a machine slowing down does not always hit one side.
    const order = k % 2 === 0 ? ['ours', 'ffcv'] : ['ffcv', 'ours'];
    for (const who of order) {
      if (who === 'ours') ours.push(runOurs(file, c));
      else {
        const f = runFfcv(file, c);
        if (f) ffcv.push(f);
      }
    }
    process.stderr.write(`round ${k + 1}/${c.rounds} done\n`);
  }
  const summary = (rs: TabularRun[]) => ({
    open_ms: median(rs.map((r) => r.openMs)),
    first_batch_ms: median(rs.map((r) => r.firstBatchMs)),
    first_epoch_s: median(rs.map((r) => r.epochs[0]!)),
    later_epoch_s: median(rs.flatMap((r) => r.epochs.slice(1))),
  });
  const o = summary(ours);
  const f = ffcv.length ? summary(ffcv) : null;
  const rows = (Object.keys(o) as Array<keyof typeof o>).map((k) => [
    k,
    String(round(o[k], 3)),
    f ? String(round(f[k], 3)) : '—',
    f ? `${round(o[k] / f[k], 2)}x` : '—',
  ]);
  console.log(`${c.rows} records (int + float), random order, batch ${c.batchSize}, ${c.workers} workers; medians of ${c.rounds} rounds`);
  console.log(renderTable(['', 'ours', 'FFCV', 'ours/FFCV'], rows));
  console.log(JSON.stringify({ bench: 'loader-tabular', config: c, ours: o, ffcv: f, runs: { ours, ffcv } }));
  return 0;
}

export const main: BenchMain = benchMain('loader tabular', HELP, parse, run);
