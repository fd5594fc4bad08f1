/**
 * CSV memory benchmark: converts a generated 5-column CSV (id int, x float, y float,
 * label int, tag short string → json) with buildDataset, sampling process RSS and heap
 * every 100 ms, to show that memory stays flat whatever the row count: a 5,000,000-row
 * build should peak where a 500,000-row one does.
 *
 *   npm run bench -- csv-memory [--quick] [--rows 500000,5000000] [--lengths auto,known]
 *                               [--fields inferred|given] [--workers N] [--interval-ms MS]
 *                               [--seed S] [--keep] [--json FILE]
 *
 * Each build runs in a fresh process (bench/lib/csv-memory-child.ts), so its RSS and the
 * kernel's peak RSS are its own. Prints tables, then one JSON line ({"bench":"csv-memory",…}).
 */
import { fork } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { COUNT_LIMIT_BYTES } from '../core/sources/tables/count-records.js';
import { progressPrinter } from './generate-imagenet-like.js';
import type { ChildMessage, ChildResult, ChildSpec } from './lib/csv-memory-child.js';
import { UsageError, benchMain, isEntryPoint, listSetting, nonNegativeInt, positiveInt, runAsScript, type BenchMain } from './lib/cli.js';
import { ensureCsvTable, type CsvTableFile } from './lib/csv-table.js';
import { benchScratchDir } from './lib/repo.js';
import { max, median, round } from './lib/stats.js';
import { renderTable } from './lib/table.js';

const DEFAULT_ROWS = [500_000, 5_000_000];
const QUICK_ROWS = [20_000, 200_000];
const LENGTHS = ['auto', 'known'] as const;
type LengthMode = (typeof LENGTHS)[number];
/** A build counts as flat when its peak RSS is within this factor of the smallest build's. */
const FLAT_PEAK_RATIO = 1.2;
/** …and RSS grows less than this between 10 % and 90 % of its progress. */
const FLAT_GROWTH_BYTES = 32 * 2 ** 20;

interface Config {
  rows: number[];
  lengths: LengthMode[];
  fields: 'inferred' | 'given';
  numWorkers: number | null;
  intervalMs: number;
  seed: number;
  keep: boolean;
  quick: boolean;
  jsonFile: string | undefined;
}

const HELP = `usage: csv-memory [options]
  --quick               ${QUICK_ROWS.join(' and ')} rows instead of ${DEFAULT_ROWS.join(' and ')} (smoke test)
  --rows LIST           row counts, run smallest first (default ${DEFAULT_ROWS.join(',')})
  --lengths LIST        auto: buildDataset as users call it (a CSV under ${COUNT_LIMIT_BYTES / 2 ** 20} MiB is counted first, a larger
                        one has an unknown length and the writer spills metadata to temp files);
                        known: with range [0, rows], so the writer knows the length and writes metadata in place
                        (skipped where auto already knows it). Default auto,known
  --fields MODE         inferred (detectSchema, default) or given (int,float,float,int,json)
  --workers N           numWorkers (default: the library's, one per core)
  --interval-ms MS      memory sampling period (default 100)
  --seed S              generator seed (default 1)
  --keep                keep the .beton outputs (under .bench/csv-memory/)
  --json FILE           also write the JSON result to FILE`;

function parseConfig(argv: string[]): Config | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean' },
      rows: { type: 'string' },
      lengths: { type: 'string' },
      fields: { type: 'string' },
      workers: { type: 'string' },
      'interval-ms': { type: 'string' },
      seed: { type: 'string' },
      keep: { type: 'boolean' },
      json: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return 'help';
  const quick = values.quick ?? false;
  const rows =
    values.rows === undefined ? (quick ? QUICK_ROWS : DEFAULT_ROWS) : values.rows.split(',').map((r) => positiveInt(r.trim(), '--rows'));
  if (new Set(rows).size !== rows.length) throw new UsageError('--rows has duplicates');
  const fields = values.fields ?? 'inferred';
  if (fields !== 'inferred' && fields !== 'given') throw new UsageError(`--fields must be inferred or given, got "${fields}"`);
  return {
    quick,
    rows: [...rows].sort((a, b) => a - b),
    lengths: [...new Set(listSetting(values.lengths, 'lengths', LENGTHS, LENGTHS))],
    fields,
    numWorkers: values.workers === undefined ? null : nonNegativeInt(values.workers, '--workers'),
    intervalMs: values['interval-ms'] === undefined ? 100 : positiveInt(values['interval-ms'], '--interval-ms'),
    seed: values.seed === undefined ? 1 : nonNegativeInt(values.seed, '--seed'),
    keep: values.keep ?? false,
    jsonFile: values.json,
  };
}

export const main: BenchMain = benchMain('csv-memory', HELP, parseConfig, runBenchmark);

interface Run {
  table: CsvTableFile;
  result: ChildResult;
}

async function runBenchmark(cfg: Config): Promise<number> {
  const tStart = performance.now();
  const dir = join(benchScratchDir(), 'csv-memory');
  const runs: Run[] = [];
  for (const rows of cfg.rows) {
    const table = await ensureCsvTable({ rows, seed: cfg.seed, dir, onProgress: progressPrinter(`generating ${rows}-row CSV`) });
    const m = table.manifest;
    console.log(
      `${table.path}: ${m.rows} rows, ${(m.bytes / 2 ** 20).toFixed(1)} MiB; ${table.generated ? `generated in ${(table.elapsedMs / 1000).toFixed(1)} s` : 'reused (manifest matches)'}`,
    );
    // The CSV source counts rows only below its limit (and without quotes, which this file has none of).
    const counted = m.bytes < COUNT_LIMIT_BYTES;
    for (const lengthMode of cfg.lengths) {
      if (lengthMode === 'known' && counted && cfg.lengths.includes('auto')) continue;
      const spec: ChildSpec = {
        csvPath: table.path,
        rows,
        seed: cfg.seed,
        lengthMode,
        fields: cfg.fields,
        numWorkers: cfg.numWorkers,
        intervalMs: cfg.intervalMs,
        outPath: join(dir, `out-${rows}-${lengthMode}.beton`),
        keep: cfg.keep,
      };
      log(`build ${rows} rows (${lengthMode === 'auto' ? 'buildDataset defaults' : 'range [0, rows]: length known'}) in a fresh process…`);
      const result = await runChild(spec);
      runs.push({ table, result });
      log(
        `  ${result.writerPath} path: ${(result.buildMs / 1000).toFixed(1)} s, ${fmt(rows / (result.buildMs / 1000), 0)} rows/s, peak RSS ${mb(result.peakSampled.rss)} MB ` +
          `(kernel ${mb(result.maxRss)}), verified ${result.verify.ok ? 'ok' : 'FAILED'}, ${cpuNote(result)}`,
      );
    }
  }
  const totalS = (performance.now() - tStart) / 1000;
  console.log('');
  console.log(printReport(cfg, runs, totalS));
  const json = JSON.stringify(toJson(cfg, runs, totalS));
  console.log(json);
  if (cfg.jsonFile) await writeFile(cfg.jsonFile, json + '\n');
  if (!cfg.keep) for (const r of runs) await rm(join(dir, `out-${r.result.rows}-${r.result.lengthMode}.beton`), { force: true });
  return runs.every((r) => r.result.verify.ok) ? 0 : 1;
}

function runChild(spec: ChildSpec): Promise<ChildResult> {
  const module = fileURLToPath(new URL('./lib/csv-memory-child.js', import.meta.url));
  return new Promise((resolve, reject) => {
    // --expose-gc: heap retained after a full GC at 10/50/90 %, the precise leak signal.
    const child = fork(module, [JSON.stringify(spec)], { execArgv: ['--expose-gc'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let message: ChildMessage | null = null;
    child.on('message', (m: ChildMessage) => (message = m));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      const m = message as ChildMessage | null;
      if (m?.ok) resolve(m);
      else if (m && !m.ok) reject(new Error(`build of ${spec.rows} rows failed:\n${m.error}`));
      else reject(new Error(`the measuring process exited (${signal ?? `code ${code}`}) without a result`));
    });
  });
}

function log(line: string): void {
  process.stderr.write(line + '\n');
}

const fmt = (v: number, digits = 1): string => v.toFixed(digits);
const mb = (bytes: number): string => (bytes / 2 ** 20).toFixed(1);

function cpuNote(r: ChildResult): string {
  return `${r.cores.toFixed(2)} cores busy` + (r.otherCores === null ? '' : `, other load ${r.otherCores.toFixed(2)}`);
}

function lengthNote(r: Run): string {
  if (r.result.lengthMode === 'known') return 'range [0,N]: known';
  return r.result.progressTotal === null ? 'unknown (>=64 MiB)' : 'counted (<64 MiB)';
}

function at(r: ChildResult, tenth: number): ChildResult['checkpoints'][number] | undefined {
  return r.checkpoints.find((c) => c.tenth === tenth);
}

function growth(r: ChildResult): number | null {
  const a = at(r, 1);
  const b = at(r, 9);
  return a && b ? b.mem.rss - a.mem.rss : null;
}

/** The reference each build is compared with: the smallest build (the first run). */
function verdicts(runs: Run[]): Array<{ run: Run; ratio: number; growth: number | null; flat: boolean }> {
  const ref = runs[0];
  if (!ref) return [];
  return runs.map((run) => {
    const ratio = run.result.peakSampled.rss / ref.result.peakSampled.rss;
    const g = growth(run.result);
    return { run, ratio, growth: g, flat: ratio <= FLAT_PEAK_RATIO && (g === null || g <= FLAT_GROWTH_BYTES) };
  });
}

function printReport(cfg: Config, runs: Run[], totalS: number): string {
  const lines: string[] = [];
  const first = runs[0]?.result;
  const fieldList = first ? first.fields.map((f) => `${f.name} ${f.type}`).join(', ') : '';
  lines.push(`csv-memory benchmark: buildDataset of a generated CSV, fields ${cfg.fields} (${fieldList})`);
  lines.push(
    `  numWorkers ${first?.numWorkers ?? '?'}${cfg.numWorkers === null ? ' (library default: one per core)' : ''}; process.memoryUsage() every ${cfg.intervalMs} ms; ` +
      `each build in a fresh node process; ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown CPU'})`,
  );
  lines.push(
    '  writer path: direct = length known, metadata written in place; spill = length unknown, metadata/pages/allocations to temp files, moved at the end',
  );
  lines.push('');
  lines.push(
    renderTable(
      [
        'rows',
        'CSV MiB',
        'length',
        'writer path',
        'build s',
        'rows/s',
        'writer rows/s',
        'peak RSS MiB',
        'kernel maxRSS MiB',
        'RSS@10%',
        'RSS@50%',
        'RSS@90%',
        '90%-10%',
        'file MiB',
        'verified',
      ],
      runs.map((r) => {
        const x = r.result;
        const g = growth(x);
        return [
          String(x.rows),
          mb(r.table.manifest.bytes),
          lengthNote(r),
          x.writerPath,
          fmt(x.buildMs / 1000),
          fmt(x.rows / (x.buildMs / 1000), 0),
          fmt(x.writerSamplesPerSec, 0),
          mb(x.peakSampled.rss),
          mb(x.maxRss),
          ...[1, 5, 9].map((t) => {
            const c = at(x, t);
            return c ? mb(c.mem.rss) : '-';
          }),
          g === null ? '-' : `${g >= 0 ? '+' : ''}${mb(g)}`,
          mb(x.fileSize),
          x.verify.ok ? `ok (${x.verify.checked} rows)` : 'FAILED',
        ];
      }),
    ),
  );
  lines.push('');
  lines.push(
    "main-thread heap, MiB (workers' heaps are in RSS only): used at 10/50/90 %, retained after a full GC at 10/50/90 %, ArrayBuffers peak; RSS before/after the build:",
  );
  lines.push(
    renderTable(
      [
        'rows',
        'writer path',
        'heap@10%',
        'heap@50%',
        'heap@90%',
        'GC@10%',
        'GC@50%',
        'GC@90%',
        'heap peak',
        'ArrayBuffers peak',
        'RSS before',
        'RSS after',
        'samples',
        'max gap ms',
      ],
      runs.map((r) => {
        const x = r.result;
        const h = (t: number): string => {
          const c = at(x, t);
          return c ? mb(c.mem.heapUsed) : '-';
        };
        const g = (t: number): string => {
          const c = at(x, t);
          return c && c.heapAfterGc !== null ? mb(c.heapAfterGc) : '-';
        };
        return [
          String(x.rows),
          x.writerPath,
          h(1),
          h(5),
          h(9),
          g(1),
          g(5),
          g(9),
          mb(x.peakSampled.heapUsed),
          mb(x.peakSampled.arrayBuffers),
          mb(x.baseline.rss),
          mb(x.afterBuild.rss),
          String(x.samples),
          fmt(x.maxGapMs, 0),
        ];
      }),
    ),
  );
  lines.push('');
  lines.push('RSS (MiB) at each tenth of the progress:');
  lines.push(
    renderTable(
      ['rows', 'writer path', ...Array.from({ length: 9 }, (_, i) => `${(i + 1) * 10}%`)],
      runs.map((r) => [
        String(r.result.rows),
        r.result.writerPath,
        ...Array.from({ length: 9 }, (_, i) => {
          const c = at(r.result, i + 1);
          return c ? mb(c.mem.rss) : '-';
        }),
      ]),
    ),
  );
  lines.push('');
  lines.push(
    'verification, after the build and its measurements (Reader holds the whole metadata and allocation tables, so its memory grows with the rows):',
  );
  lines.push(
    renderTable(
      ['rows', 'writer path', 'numSamples', 'rows checked', 'Reader.open s', 'RSS after open MiB', 'result'],
      runs.map((r) => {
        const x = r.result;
        return [
          String(x.rows),
          x.writerPath,
          String(x.numSamples),
          String(x.verify.checked),
          fmt(x.verify.openMs / 1000),
          mb(x.verify.rssAfterOpen),
          x.verify.ok ? 'ok' : 'FAILED',
        ];
      }),
    ),
  );
  lines.push('');
  const v = verdicts(runs);
  const ref = runs[0];
  if (ref && v.length > 1) {
    lines.push(
      `flat = peak RSS within ${FLAT_PEAK_RATIO}x of the ${ref.result.rows}-row build's (${mb(ref.result.peakSampled.rss)} MiB, ${ref.result.writerPath} path) and RSS growing < ${mb(FLAT_GROWTH_BYTES)} MiB from 10 % to 90 %:`,
    );
    for (const x of v.slice(1)) {
      lines.push(
        `  ${x.run.result.rows} rows, ${x.run.result.writerPath} path: peak ${mb(x.run.result.peakSampled.rss)} MiB = ${fmt(x.ratio, 2)}x the reference, ` +
          `growth ${x.growth === null ? '-' : `${mb(x.growth)} MiB`} → ${x.flat ? 'FLAT' : 'NOT FLAT'}`,
      );
    }
  }
  for (const r of runs) {
    if (!r.result.verify.ok)
      lines.push(`VERIFY FAILED for ${r.result.rows} rows (${r.result.writerPath}): ${r.result.verify.problems.join('; ')}`);
  }
  const other = runs.map((r) => r.result.otherCores).filter((c): c is number => c !== null);
  if (other.length > 0) {
    lines.push(
      `other load during the builds (other processes + hypervisor steal): median ${fmt(median(other), 2)}, max ${fmt(max(other), 2)} cores`,
    );
    if (max(other) > 0.25)
      lines.push('  WARNING: the machine was not idle; rows/s are lower than on an idle machine (memory figures are not affected)');
  }
  lines.push(`total benchmark time ${fmt(totalS)} s`);
  return lines.join('\n');
}

function toJson(cfg: Config, runs: Run[], totalS: number): Record<string, unknown> {
  const MiB = (b: number): number => round(b / 2 ** 20, 1);
  return {
    bench: 'csv-memory',
    version: 1,
    date: new Date().toISOString(),
    env: {
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
      cores: availableParallelism(),
      cpu: cpus()[0]?.model ?? null,
    },
    config: {
      rows: cfg.rows,
      lengths: cfg.lengths,
      fields: cfg.fields,
      numWorkers: cfg.numWorkers,
      intervalMs: cfg.intervalMs,
      seed: cfg.seed,
      quick: cfg.quick,
    },
    runs: runs.map(({ table, result: x }) => ({
      rows: x.rows,
      csvBytes: table.manifest.bytes,
      lengthMode: x.lengthMode,
      writerPath: x.writerPath,
      fields: x.fields,
      numWorkers: x.numWorkers,
      buildSeconds: round(x.buildMs / 1000, 2),
      rowsPerSec: round(x.rows / (x.buildMs / 1000), 0),
      writerSamplesPerSec: round(x.writerSamplesPerSec, 0),
      fileSize: x.fileSize,
      coresBusy: round(x.cores, 2),
      otherLoadCores: x.otherCores === null ? null : round(x.otherCores, 2),
      memMiB: {
        baselineRss: MiB(x.baseline.rss),
        peakRss: MiB(x.peakSampled.rss),
        kernelMaxRss: MiB(x.maxRss),
        afterBuildRss: MiB(x.afterBuild.rss),
        peakHeapUsed: MiB(x.peakSampled.heapUsed),
        peakArrayBuffers: MiB(x.peakSampled.arrayBuffers),
        checkpoints: x.checkpoints.map((c) => ({
          pct: c.tenth * 10,
          rss: MiB(c.mem.rss),
          heapUsed: MiB(c.mem.heapUsed),
          arrayBuffers: MiB(c.mem.arrayBuffers),
          heapAfterGc: c.heapAfterGc === null ? null : MiB(c.heapAfterGc),
        })),
        rssSeries: x.rssSeries.map(MiB),
      },
      samples: x.samples,
      maxGapMs: round(x.maxGapMs, 0),
      verify: {
        ok: x.verify.ok,
        checkedRows: x.verify.checked,
        problems: x.verify.problems,
        readerOpenMs: round(x.verify.openMs, 0),
        rssAfterReaderOpenMiB: MiB(x.verify.rssAfterOpen),
      },
    })),
    verdicts: verdicts(runs)
      .slice(1)
      .map((v) => ({
        rows: v.run.result.rows,
        writerPath: v.run.result.writerPath,
        peakRatio: round(v.ratio, 3),
        growthMiB: v.growth === null ? null : MiB(v.growth),
        flat: v.flat,
      })),
    totalSeconds: round(totalS),
  };
}

if (isEntryPoint(import.meta.url)) runAsScript(main);
