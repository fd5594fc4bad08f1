/**
 * `npm run bench -- ratios`: the three lines of issue 31 against the real FFCV, in one run,
 * as ratios of speed (ours / FFCV: > 1 means we are faster):
 *
 *   images   3,000 ImageNet-like JPEGs (jpg, max 256, q90), RandomResizedCrop 160 + flip + CHW,
 *            2 workers, batch 64, quasi-random, FFCV's exact pixels; img/s of the later epochs
 *   writer   the same sources written with jpg 256 q90, IntField label, 2 workers, end to end
 *            (the writer's own time); our files must be byte-identical to FFCV's 1-worker file
 *   tabular  1,281,167 int+float records, random order, batch 256, 2 workers; seconds of a
 *            later epoch
 *
 * Every measurement is a fresh process (FFCV under /usr/bin/python3), and the two sides
 * alternate: round k runs ours then FFCV on each line (FFCV first on odd rounds), so a machine
 * that slows down hits both. Each line's figure is the median over rounds; the per-round ratios
 * (pairs run back to back) are printed too. `--hogs N` starts N CPU-burning processes (detached,
 * in their own session: neither side's process tree counts their CPU) for the whole run:
 * the "busy machine" line. Writes .bench/ratios-<date>.json (or --json FILE) with the
 * medians, ratios, every round and the machine's load, to compare runs.
 *
 * Data are made on first use under .bench/ (the generated folder, the jpg .beton of the loader
 * benchmark, the tabular CSV and .beton), so the command needs no preparation.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ensureImageNetLike, progressPrinter } from './generate-imagenet-like.js';
import { benchMain, listSetting, positiveInt, nonNegativeInt, type BenchMain } from './lib/cli.js';
import { ensureLoaderDataset } from './lib/loader-data.js';
import { benchScratchDir, repoRoot } from './lib/repo.js';
import { median, round } from './lib/stats.js';
import { renderTable } from './lib/table.js';
import { ensureTable, runFfcv as runFfcvTabular, runOurs as runOursTabular, type TabularConfig } from './loader-tabular.js';
import { checkFfcv, runFfcv as runFfcvWriter, runJson, runOurs as runOursWriter, type VsFfcvConfig } from './writer-vs-ffcv.js';

const LINES = ['images', 'writer', 'tabular'] as const;
type Line = (typeof LINES)[number];

interface Config {
  lines: Line[];
  rounds: number;
  /** Epochs per image-loader process: the first is a warm-up (FFCV's includes numba's compile). */
  imageEpochs: number;
  tabularEpochs: number;
  count: number;
  rows: number;
  workers: number;
  hogs: number;
  python: string;
  quick: boolean;
  jsonFile: string | undefined;
}

const HELP = `ratios [--quick] [--hogs N] [--rounds R] [--only images,writer,tabular] [--json FILE] [--python PY]
  Ours vs the real FFCV on three lines, alternating fresh processes, medians of R rounds:
    images   3,000 JPEGs, RRC 160 + flip, 2 workers, b64, quasi-random (img/s, later epochs)
    writer   the same sources, jpg 256 q90, 2 workers, end to end, byte-identical (img/s)
    tabular  1,281,167 int+float records, random, b256, 2 workers (s per later epoch)
  --quick   3 rounds, 3 epochs per process (under 5 minutes on 2 quiet cores once data exist)
  default   5 rounds, 5 epochs per process
  --hogs N  N CPU-hog processes (outside both sides' process trees) run meanwhile
  Writes .bench/ratios-<date>.json (--json FILE to choose). Data are generated under .bench/ when missing.`;

function parse(argv: string[]): Config | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean' },
      hogs: { type: 'string' },
      rounds: { type: 'string' },
      only: { type: 'string' },
      json: { type: 'string' },
      python: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) return 'help';
  const quick = values.quick ?? false;
  return {
    lines: listSetting(values.only, 'only', LINES, LINES),
    rounds: values.rounds ? positiveInt(values.rounds, '--rounds') : quick ? 3 : 5,
    imageEpochs: quick ? 3 : 5,
    // Five in quick mode too: a tabular epoch costs 0.05–0.9 s, and epochs 1–2 alone still
    // carry the start's warm-up (JIT, worker 0's module load, first GCs): 'later epoch' is 1–4.
    tabularEpochs: 5,
    count: 3000,
    rows: 1_281_167,
    workers: 2,
    hogs: values.hogs ? nonNegativeInt(values.hogs, '--hogs') : 0,
    python: values.python ?? process.env.BETON_FFCV_PYTHON ?? '/usr/bin/python3',
    quick,
    jsonFile: values.json,
  };
}

type Impl = 'ours' | 'ffcv';

/** One process's figure on one line: higher is better (img/s), or seconds for tabular. */
interface Measurement {
  line: Line;
  impl: Impl;
  round: number;
  /** img/s (images, writer) or seconds per later epoch (tabular). */
  value: number;
  load1: number;
  detail: unknown;
}

const log = (s: string): void => void process.stderr.write(s + '\n');

/** Speed of `value` as "bigger is faster", whatever the unit. */
const speed = (line: Line, value: number): number => (line === 'tabular' ? 1 / value : value);
const unit = (line: Line): string => (line === 'tabular' ? 's/epoch' : 'img/s');

function startHogs(n: number): ChildProcess[] {
  const hogs: ChildProcess[] = [];
  for (let i = 0; i < n; i++) {
    // Detached: a new session, not in the measured processes' trees, so no rusage counts it.
    const h = spawn('sh', ['-c', 'while :; do :; done'], { detached: true, stdio: 'ignore' });
    h.unref();
    hogs.push(h);
  }
  return hogs;
}

function stopHogs(hogs: ChildProcess[]): void {
  for (const h of hogs) {
    if (h.pid !== undefined && h.exitCode === null) {
      try {
        process.kill(h.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

function sha256(path: string): Promise<string> {
  return new Promise((ok, fail) => {
    const h = createHash('sha256');
    createReadStream(path)
      .on('data', (d) => h.update(d))
      .on('end', () => ok(h.digest('hex')))
      .on('error', fail);
  });
}

interface ImagesRun {
  openMs: number;
  firstBatchMs: number;
  epochs: number[];
  images: number;
}

async function runImages(impl: Impl, file: string, cfg: Config, pyCwd: string): Promise<ImagesRun> {
  if (impl === 'ours') {
    const child = join(dirname(fileURLToPath(import.meta.url)), 'lib', 'ratios-images-child.js');
    const args = { file, epochs: cfg.imageEpochs, batchSize: 64, workers: cfg.workers, size: 160 };
    return (await runJson(process.execPath, [child, JSON.stringify(args)], process.cwd())) as ImagesRun;
  }
  const script = join(repoRoot(), 'bench', 'py', 'ffcv_images.py');
  const j = (await runJson(cfg.python, [script, file, String(cfg.imageEpochs), '64', String(cfg.workers), '160'], pyCwd)) as {
    open_ms: number;
    first_batch_ms: number;
    epochs_s: number[];
    images: number;
  };
  return { openMs: j.open_ms, firstBatchMs: j.first_batch_ms, epochs: j.epochs_s, images: j.images };
}

async function run(cfg: Config): Promise<number> {
  const t0 = performance.now();
  const hogs = startHogs(cfg.hogs);
  const onSignal = (): void => {
    stopHogs(hogs);
    process.exit(130);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const pyCwd = await mkdtemp(join(tmpdir(), 'beton-ratios-'));
  const outDir = join(benchScratchDir(), 'ratios');
  await mkdir(outDir, { recursive: true });
  const measurements: Measurement[] = [];
  let writerReference: string | null = null;
  const identity: Array<{ round: number; equal: boolean }> = [];
  try {
    await checkFfcv(cfg.python, pyCwd);
    // Data (made once, cached under .bench/).
    const ds = await ensureImageNetLike({ count: cfg.count, onProgress: progressPrinter('generating images') });
    const imagesFile = cfg.lines.includes('images') ? (await ensureLoaderDataset(ds, 'jpg')).path : '';
    const tab: TabularConfig = { rows: cfg.rows, rounds: 1, epochs: cfg.tabularEpochs, workers: cfg.workers, batchSize: 256 };
    const tabularFile = cfg.lines.includes('tabular') ? await ensureTable(cfg.rows) : '';
    const wcfg: VsFfcvConfig = {
      count: cfg.count,
      seed: 1,
      rounds: cfg.rounds,
      workers: [cfg.workers],
      maxResolution: 256,
      quality: 90,
      python: cfg.python,
      stageImages: 0,
      jsonFile: undefined,
    };
    const py = join(repoRoot(), 'bench', 'py');
    if (cfg.lines.includes('writer')) {
      // FFCV's single-worker file is the byte reference (its multi-worker files interleave pages).
      log('writer: FFCV 1-worker reference file (untimed)…');
      const ref = join(outDir, 'ffcv-w1.beton');
      await runFfcvWriter(ds.root, ref, 1, wcfg, 0, py, pyCwd);
      writerReference = await sha256(ref);
      await rm(ref, { force: true });
    }

    for (let r = 1; r <= cfg.rounds; r++) {
      const order: Impl[] = r % 2 === 1 ? ['ours', 'ffcv'] : ['ffcv', 'ours'];
      for (const line of cfg.lines) {
        for (const impl of order) {
          const load1 = loadavg()[0]!;
          let value: number;
          let detail: unknown;
          if (line === 'images') {
            const res = await runImages(impl, imagesFile, cfg, pyCwd);
            value = median(res.epochs.slice(1).map((s) => res.images / s));
            detail = res;
          } else if (line === 'writer') {
            const out = join(outDir, `${impl}-w${cfg.workers}.beton`);
            const res =
              impl === 'ours'
                ? await runOursWriter(ds.root, out, cfg.workers, wcfg, r)
                : await runFfcvWriter(ds.root, out, cfg.workers, wcfg, r, py, pyCwd);
            if (impl === 'ours') identity.push({ round: r, equal: res.sha256 === writerReference });
            await rm(out, { force: true });
            value = res.imagesPerSec;
            const { timings: _t, ...rest } = res;
            detail = rest;
          } else {
            const res = impl === 'ours' ? runOursTabular(tabularFile, tab) : runFfcvTabular(tabularFile, tab);
            if (res === null) throw new Error('FFCV tabular run failed');
            value = median(res.epochs.slice(1));
            detail = res;
          }
          measurements.push({ line, impl, round: r, value, load1, detail });
          log(
            `round ${r}/${cfg.rounds} ${line} ${impl}: ${round(value, line === 'tabular' ? 3 : 0)} ${unit(line)} (load ${load1.toFixed(1)})`,
          );
        }
      }
    }
  } finally {
    stopHogs(hogs);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await rm(pyCwd, { recursive: true, force: true });
  }

  const lines = cfg.lines.map((line) => {
    const of = (impl: Impl): number[] => measurements.filter((m) => m.line === line && m.impl === impl).map((m) => m.value);
    const ours = median(of('ours'));
    const ffcv = median(of('ffcv'));
    const perRound: number[] = [];
    for (let r = 1; r <= cfg.rounds; r++) {
      const o = measurements.find((m) => m.line === line && m.impl === 'ours' && m.round === r);
      const f = measurements.find((m) => m.line === line && m.impl === 'ffcv' && m.round === r);
      if (o && f) perRound.push(speed(line, o.value) / speed(line, f.value));
    }
    return {
      line,
      unit: unit(line),
      ours: round(ours, line === 'tabular' ? 4 : 1),
      ffcv: round(ffcv, line === 'tabular' ? 4 : 1),
      ratio: round(speed(line, ours) / speed(line, ffcv), 3),
      perRound: perRound.map((x) => round(x, 3)),
      medianOfRoundRatios: round(median(perRound), 3),
    };
  });
  const loads = measurements.map((m) => m.load1);
  const byteIdentical = cfg.lines.includes('writer') ? identity.length > 0 && identity.every((i) => i.equal) : null;
  const totalS = (performance.now() - t0) / 1000;

  console.log('');
  console.log(
    `ours vs FFCV, ${cfg.rounds} rounds alternating fresh processes, ${cfg.hogs} CPU hog(s); ${availableParallelism()} cores (${cpus()[0]?.model ?? '?'}); load average ${round(Math.min(...loads), 1)}-${round(Math.max(...loads), 1)}`,
  );
  console.log(
    renderTable(
      ['line', 'unit', 'ours', 'FFCV', 'speed ratio', 'per round'],
      lines.map((l) => [
        l.line,
        l.unit,
        String(l.ours),
        String(l.ffcv),
        `${l.ratio.toFixed(2)}x`,
        l.perRound.map((x) => x.toFixed(2)).join(' '),
      ]),
    ),
  );
  console.log('  speed ratio = our speed / FFCV speed (> 1: we are faster); tabular compares seconds per later epoch inversely');
  if (byteIdentical !== null)
    console.log(`  writer bytes: ours ${byteIdentical ? 'EQUAL' : 'DIFFERENT'} to FFCV's 1-worker file (sha256 ${writerReference ?? '?'})`);
  console.log(`total ${round(totalS, 1)} s`);

  const json = {
    bench: 'ratios',
    version: 1,
    date: new Date().toISOString(),
    env: { node: process.version, cores: availableParallelism(), cpu: cpus()[0]?.model ?? null, python: cfg.python },
    config: cfg,
    load: { min: Math.min(...loads), max: Math.max(...loads), median: median(loads) },
    lines,
    writerByteIdentical: byteIdentical,
    measurements,
    totalSeconds: round(totalS, 1),
  };
  const file = cfg.jsonFile ?? join(benchScratchDir(), `ratios-${json.date.replace(/[:]/g, '-').replace(/\..*$/, '')}.json`);
  await writeFile(file, JSON.stringify(json, null, 1) + '\n');
  console.log(`JSON: ${file}`);
  if (byteIdentical === false) {
    console.error("writer: our file differs from FFCV's 1-worker file");
    return 1;
  }
  return 0;
}

export const main: BenchMain = benchMain('ratios', HELP, parse, run);
