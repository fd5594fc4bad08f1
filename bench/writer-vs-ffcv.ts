/**
 * `npm run bench -- writer --vs-ffcv`: our writer against FFCV's own DatasetWriter on ONE
 * generated ImageNet-like source, same settings (write_mode 'jpg', max_resolution 256,
 * jpeg_quality 90, IntField label, 8 MiB pages), alternating in one run: ours w1, FFCV w1,
 * ours w2, FFCV w2, … for --rounds rounds, each build in a fresh process. Prints both
 * implementations' images/s (writer's own time: from the call to the finished file, worker
 * start included, interpreter start and imports not), end-to-end process time, CPU per
 * image, our per-stage account (DatasetWriterOptions.timings), one thread's cost per step
 * for both stacks, medians and ratios, the load average around each build, and checks that
 * every file we wrote has FFCV's single-worker file's sha256.
 *
 * FFCV runs under /usr/bin/python3 (where the reference FFCV is installed; --python
 * overrides), from a scratch folder outside any source tree.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ImageFolderSource, cappedSize, type WriteReport } from '../core/index.js';
import { jpegDecodeRGB, jpegEncodeRGB, jpegInfo } from '../core/native/jpeg-codec.js';
import { resizeAreaRGB } from '../core/native/area-resize.js';
import { hasTranscodeJpeg, threadCpuMs } from '../core/native/writer-transcode.js';
import type { WriterTimings } from '../core/api/writer-timings.js';
import { describe, ensureImageNetLike, progressPrinter } from './generate-imagenet-like.js';
import { benchScratchDir, repoRoot } from './lib/repo.js';
import { max, median, min, round } from './lib/stats.js';
import { renderTable } from './lib/table.js';

export interface VsFfcvConfig {
  count: number;
  seed: number;
  rounds: number;
  workers: number[];
  maxResolution: number;
  quality: number;
  python: string;
  /** Images timed step by step on one thread (both stacks). */
  stageImages: number;
  jsonFile: string | undefined;
}

/** FFCV's writer refuses pages under 2 MiB; 8 MiB is its default and ours. */
const PAGE_SIZE = 8 << 20;

type Impl = 'ours' | 'ffcv';

export interface WriterRun {
  impl: Impl;
  workers: number;
  round: number;
  /** Writer's own wall seconds (ours: DatasetWriter.write; FFCV: from_indexed_dataset). */
  seconds: number;
  imagesPerSec: number;
  /** Fresh process start to exit. */
  processSeconds: number;
  /** CPU seconds of the process and its workers during the write. */
  cpuSeconds: number;
  loadBefore: number;
  loadAfter: number;
  /**
   * Other processes' (and the hypervisor's) CPU while the build's process ran, in cores:
   * /proc/stat's busy time minus the whole process's own CPU, over its wall time.
   */
  otherCores: number | null;
  sha256: string;
  timings?: WriterTimings;
}

interface Stages {
  ours: { read: number; decode: number; resize: number; encode: number };
  ffcv: { open: number; decode: number; asarray: number; resize: number; encode: number } | null;
}

const log = (line: string): void => void process.stderr.write(line + '\n');
const fmt = (v: number, d = 1): string => v.toFixed(d);

export async function runVsFfcv(cfg: VsFfcvConfig): Promise<void> {
  const t0 = performance.now();
  const ds = await ensureImageNetLike({ count: cfg.count, seed: cfg.seed, onProgress: progressPrinter('generating images') });
  console.log(describe(ds));
  const root = ds.root;
  const outDir = join(benchScratchDir(), 'vs-ffcv');
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  // FFCV's python runs from an empty folder outside any source tree (a folder named like a
  // package in the working directory would shadow the installed one).
  const pyCwd = await mkdtemp(join(tmpdir(), 'beton-vs-ffcv-'));
  const py = join(repoRoot(), 'bench', 'py');
  const runs: WriterRun[] = [];
  let reference: string | null = null; // FFCV's single-worker file
  let stages: Stages;
  try {
    await checkFfcv(cfg.python, pyCwd);

    // Every run reads the sources from the page cache, not only the later ones.
    const paths = [...new ImageFolderSource(root)].map((s) => s.image.path);
    for (const p of paths) await readFile(p);

    log(`one thread, step by step (${cfg.stageImages} images, both stacks)…`);
    stages = { ours: oursStages(paths.slice(0, cfg.stageImages), cfg), ffcv: null };
    const ffcvStages = await runJson(
      cfg.python,
      [join(py, 'ffcv_stages.py'), root, String(cfg.stageImages), String(cfg.maxResolution), String(cfg.quality)],
      pyCwd,
    );
    stages.ffcv = ffcvStages as Stages['ffcv'];

    const total = cfg.rounds * cfg.workers.length * 2;
    for (let round = 1; round <= cfg.rounds; round++) {
      for (const w of cfg.workers) {
        for (const impl of ['ours', 'ffcv'] as const) {
          const out = join(outDir, `${impl}-w${w}.beton`);
          const run = impl === 'ours' ? await runOurs(root, out, w, cfg, round) : await runFfcv(root, out, w, cfg, round, py, pyCwd);
          runs.push(run);
          if (impl === 'ffcv' && w === 1 && reference === null) reference = run.sha256;
          log(
            `[${runs.length}/${total}] round ${round} ${impl} w${w}: ${fmt(run.imagesPerSec)} images/s (${fmt(run.seconds, 2)} s; process ${fmt(run.processSeconds, 2)} s; ${fmt((run.cpuSeconds * 1000) / cfg.count, 2)} CPU ms/image; load ${fmt(run.loadBefore, 2)}→${fmt(run.loadAfter, 2)}, other ${run.otherCores === null ? '?' : fmt(run.otherCores, 2)} cores)`,
          );
          await rm(out, { force: true });
        }
      }
    }
  } finally {
    await rm(pyCwd, { recursive: true, force: true });
  }
  // Our files must equal FFCV's single-worker file whatever our worker count. FFCV's own
  // multi-worker files differ from it (its workers' pages interleave as they finish).
  const identity = runs
    .filter((r) => r.impl === 'ours')
    .map((r) => ({ workers: r.workers, round: r.round, equal: reference !== null && r.sha256 === reference }));
  const allEqual = reference !== null && identity.every((i) => i.equal);

  console.log('');
  console.log(report(cfg, ds.manifest.totalBytes, runs, stages, reference, allEqual, (performance.now() - t0) / 1000));
  const json = {
    bench: 'writer-vs-ffcv',
    version: 1,
    date: new Date().toISOString(),
    env: {
      node: process.version,
      cores: availableParallelism(),
      cpu: cpus()[0]?.model ?? null,
      python: cfg.python,
      onePath: hasTranscodeJpeg(),
    },
    config: { ...cfg, pageSize: PAGE_SIZE, writeMode: 'jpg' },
    runs,
    stages,
    reference,
    identity,
    byteIdentical: allEqual,
    medians: summary(cfg, runs),
  };
  console.log(JSON.stringify(json));
  if (cfg.jsonFile) await import('node:fs/promises').then((fs) => fs.writeFile(cfg.jsonFile!, JSON.stringify(json) + '\n'));
  if (!allEqual)
    throw new Error(
      `our file differs from FFCV's single-worker file (sha256 ${reference ?? 'none'}): ${identity
        .filter((i) => !i.equal)
        .map((i) => `w${i.workers} round ${i.round}`)
        .join(', ')}`,
    );
}

export async function checkFfcv(python: string, cwd: string): Promise<void> {
  try {
    await runJson(
      python,
      ['-c', 'import json, ffcv; print(json.dumps({"ffcv": ffcv.__version__ if hasattr(ffcv, "__version__") else "?"}))'],
      cwd,
    );
  } catch (e) {
    throw new Error(
      `FFCV is not importable with ${python} (run from ${cwd}): ${(e as Error).message}\n  the reference FFCV is installed for Debian's /usr/bin/python3; --python names another interpreter`,
    );
  }
}

export async function runOurs(root: string, out: string, workers: number, cfg: VsFfcvConfig, round: number): Promise<WriterRun> {
  const child = join(dirname(fileURLToPath(import.meta.url)), 'lib', 'writer-child.js');
  const args = { root, out, workers, maxResolution: cfg.maxResolution, quality: cfg.quality, pageSize: PAGE_SIZE };
  const m = await measured(() => runJson(process.execPath, [child, JSON.stringify(args)], process.cwd()));
  const r = m.value as { report: WriteReport; cpuMs: number; processCpuMs: number };
  return {
    impl: 'ours',
    workers,
    round,
    seconds: r.report.elapsedMs / 1000,
    imagesPerSec: r.report.samplesPerSec,
    processSeconds: m.seconds,
    cpuSeconds: r.cpuMs / 1000,
    loadBefore: m.loadBefore,
    loadAfter: m.loadAfter,
    otherCores: m.busySeconds === null ? null : Math.max(0, (m.busySeconds - r.processCpuMs / 1000) / m.seconds),
    sha256: await sha256(out),
    ...(r.report.timings ? { timings: r.report.timings } : {}),
  };
}

export async function runFfcv(
  root: string,
  out: string,
  workers: number,
  cfg: VsFfcvConfig,
  round: number,
  py: string,
  cwd: string,
): Promise<WriterRun> {
  const args = [join(py, 'ffcv_writer.py'), root, out, String(workers), String(cfg.maxResolution), String(cfg.quality), String(PAGE_SIZE)];
  const m = await measured(() => runJson(cfg.python, args, cwd));
  const r = m.value as { seconds: number; samples: number; cpuSeconds: number; processCpuSeconds: number };
  return {
    impl: 'ffcv',
    workers,
    round,
    seconds: r.seconds,
    imagesPerSec: r.samples / r.seconds,
    processSeconds: m.seconds,
    cpuSeconds: r.cpuSeconds,
    loadBefore: m.loadBefore,
    loadAfter: m.loadAfter,
    otherCores: m.busySeconds === null ? null : Math.max(0, (m.busySeconds - r.processCpuSeconds) / m.seconds),
    sha256: await sha256(out),
  };
}

/**
 * Runs `fn` (one child process) and reports its wall time, the 1-minute load average
 * before and after, and the machine's busy CPU seconds meanwhile (/proc/stat; the caller
 * subtracts the child's own CPU, start-up included).
 */
async function measured<T>(
  fn: () => Promise<T>,
): Promise<{ value: T; seconds: number; loadBefore: number; loadAfter: number; busySeconds: number | null }> {
  const loadBefore = loadavg()[0]!;
  const b0 = machineBusySeconds();
  const t0 = performance.now();
  const value = await fn();
  const seconds = (performance.now() - t0) / 1000;
  const b1 = machineBusySeconds();
  return { value, seconds, loadBefore, loadAfter: loadavg()[0]!, busySeconds: b0 === null || b1 === null ? null : b1 - b0 };
}

function machineBusySeconds(): number | null {
  try {
    const fields = (readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields;
    return (user + nice + system + irq + softirq + steal) / 100;
  } catch {
    return null;
  }
}

/** Runs a command, returns its last stdout line parsed as JSON; stderr (FFCV's progress bar) is dropped unless it fails. */
export function runJson(cmd: string, args: string[], cwd: string): Promise<unknown> {
  return new Promise((resolveRun, rejectRun) => {
    const child = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
    child.on('error', rejectRun);
    child.on('close', (code) => {
      if (code !== 0)
        return rejectRun(new Error(`${cmd} ${args[0] ?? ''} exited with ${code}: ${err.trim().split('\n').slice(-5).join('\n')}`));
      const last = out.trim().split('\n').pop() ?? '';
      try {
        resolveRun(JSON.parse(last));
      } catch {
        rejectRun(new Error(`${cmd} ${args[0] ?? ''} printed no JSON: ${last.slice(0, 200)}`));
      }
    });
  });
}

function sha256(path: string): Promise<string> {
  return new Promise((resolveHash, rejectHash) => {
    const h = createHash('sha256');
    createReadStream(path)
      .on('data', (d) => h.update(d))
      .on('end', () => resolveHash(h.digest('hex')))
      .on('error', rejectHash);
  });
}

/**
 * Our steps one at a time on this thread, thread CPU ms per image: read the file, decode
 * (libjpeg, accurate IDCT: PIL's pixels), INTER_AREA shrink, JPEG encode. The writer runs
 * the last three in one native call (transcodeJpeg); apart here so each can be timed.
 */
function oursStages(paths: string[], cfg: VsFfcvConfig): Stages['ours'] {
  const t = { read: 0, decode: 0, resize: 0, encode: 0 };
  const clock = (): number => threadCpuMs() ?? performance.now();
  let decoded = new Uint8Array(0);
  let small = new Uint8Array(0);
  for (const timed of [false, true]) {
    for (const p of paths) {
      const a = clock();
      const bytes = readFileSync(p);
      const b = clock();
      const { width, height } = jpegInfo(bytes);
      if (decoded.length < width * height * 3) decoded = new Uint8Array(width * height * 3);
      jpegDecodeRGB(bytes, decoded, { fastDct: false, strict: true });
      const c = clock();
      const [w, h] = cappedSize(width, height, cfg.maxResolution);
      if (small.length < w * h * 3) small = new Uint8Array(w * h * 3);
      resizeAreaRGB(decoded, width, height, w, h, small);
      const d = clock();
      jpegEncodeRGB(small, w, h, cfg.quality);
      const e = clock();
      if (timed) {
        t.read += b - a;
        t.decode += c - b;
        t.resize += d - c;
        t.encode += e - d;
      }
    }
  }
  const n = paths.length;
  return { read: t.read / n, decode: t.decode / n, resize: t.resize / n, encode: t.encode / n };
}

interface Summary {
  [key: string]: { imagesPerSec: number; processSeconds: number; cpuMsPerImage: number; load: number };
}

function summary(cfg: VsFfcvConfig, runs: WriterRun[]): Summary {
  const s: Summary = {};
  for (const impl of ['ours', 'ffcv'] as const) {
    for (const w of cfg.workers) {
      const rs = runs.filter((r) => r.impl === impl && r.workers === w);
      s[`${impl}_w${w}`] = {
        imagesPerSec: round(median(rs.map((r) => r.imagesPerSec))),
        processSeconds: round(median(rs.map((r) => r.processSeconds)), 2),
        cpuMsPerImage: round(median(rs.map((r) => (r.cpuSeconds * 1000) / cfg.count)), 3),
        load: round(median(rs.map((r) => (r.loadBefore + r.loadAfter) / 2)), 2),
      };
    }
  }
  return s;
}

function report(
  cfg: VsFfcvConfig,
  sourceBytes: number,
  runs: WriterRun[],
  stages: Stages,
  reference: string | null,
  allEqual: boolean,
  totalS: number,
): string {
  const lines: string[] = [];
  const n = cfg.count;
  lines.push(
    `writer vs FFCV: ${n} images (300-500 px JPEG q90, ${fmt(sourceBytes / 1e6)} MB), write mode jpg, max resolution ${cfg.maxResolution}, quality ${cfg.quality}, 8 MiB pages`,
  );
  lines.push(
    `  ${cfg.rounds} rounds alternating ours/FFCV per worker count, each build a fresh process; ${availableParallelism()} cores (${cpus()[0]?.model ?? '?'}); FFCV under ${cfg.python}`,
  );
  lines.push(
    "  images/s = samples / the writer's own time (ours: DatasetWriter.write; FFCV: from_indexed_dataset), worker start included, imports not",
  );
  lines.push('');
  const headers = [
    'workers',
    'ours img/s',
    'FFCV img/s',
    'ours/FFCV',
    'ours proc s',
    'FFCV proc s',
    'ours CPU ms/img',
    'FFCV CPU ms/img',
    'load 1m',
  ];
  const rows = cfg.workers.map((w) => {
    const o = runs.filter((r) => r.impl === 'ours' && r.workers === w);
    const f = runs.filter((r) => r.impl === 'ffcv' && r.workers === w);
    const oi = median(o.map((r) => r.imagesPerSec));
    const fi = median(f.map((r) => r.imagesPerSec));
    const load = median([...o, ...f].map((r) => (r.loadBefore + r.loadAfter) / 2));
    return [
      `w${w}`,
      `${fmt(oi)} (${fmt(min(o.map((r) => r.imagesPerSec)), 0)}-${fmt(max(o.map((r) => r.imagesPerSec)), 0)})`,
      `${fmt(fi)} (${fmt(min(f.map((r) => r.imagesPerSec)), 0)}-${fmt(max(f.map((r) => r.imagesPerSec)), 0)})`,
      `${fmt(oi / fi, 2)}x`,
      fmt(median(o.map((r) => r.processSeconds)), 2),
      fmt(median(f.map((r) => r.processSeconds)), 2),
      fmt(median(o.map((r) => (r.cpuSeconds * 1000) / n)), 2),
      fmt(median(f.map((r) => (r.cpuSeconds * 1000) / n)), 2),
      fmt(load, 2),
    ];
  });
  lines.push(renderTable(headers, rows));
  const w1 = cfg.workers.includes(1);
  if (w1) {
    for (const w of cfg.workers.filter((x) => x > 1)) {
      const ratio = (impl: Impl): number =>
        median(runs.filter((r) => r.impl === impl && r.workers === w).map((r) => r.imagesPerSec)) /
        median(runs.filter((r) => r.impl === impl && r.workers === 1).map((r) => r.imagesPerSec));
      lines.push(`w${w}/w1: ours ${fmt(ratio('ours'), 2)}x, FFCV ${fmt(ratio('ffcv'), 2)}x`);
    }
  }
  const perRound = cfg.workers.map((w) => {
    const ratios = [];
    for (let r = 1; r <= cfg.rounds; r++) {
      const o = runs.find((x) => x.impl === 'ours' && x.workers === w && x.round === r);
      const f = runs.find((x) => x.impl === 'ffcv' && x.workers === w && x.round === r);
      if (o && f) ratios.push(o.imagesPerSec / f.imagesPerSec);
    }
    return `w${w} ${ratios.map((x) => fmt(x, 2)).join(' ')}`;
  });
  lines.push(`ours/FFCV per round (pairs run back to back): ${perRound.join('; ')}`);
  const other = runs.map((r) => r.otherCores).filter((x): x is number => x !== null);
  if (other.length > 0) {
    lines.push(
      `other load during the builds: median ${fmt(median(other), 2)}, max ${fmt(max(other), 2)} cores; 1-minute load average ${fmt(min(runs.map((r) => r.loadBefore)), 2)}-${fmt(max(runs.map((r) => r.loadAfter)), 2)}`,
    );
    if (max(other) > 0.25)
      lines.push('  WARNING: the machine was not idle: absolute numbers are low; the per-round ratios are the fairer read');
  }
  lines.push('');
  lines.push(
    `byte identity: FFCV w1 sha256 ${reference ?? '?'}; ours ${allEqual ? 'EQUAL at every worker count and round' : 'DIFFERENT (see JSON identity)'}`,
  );
  lines.push('');

  // Our account: medians per worker count, per image.
  lines.push('where our time goes (median over rounds; ms per image unless noted; worker stages are thread CPU):');
  const acctHeaders = [
    'workers',
    'read',
    'decode',
    'resize',
    'encode',
    'worker other',
    'worker CPU',
    'worker busy %',
    'post',
    'main CPU',
    'place',
    'page copy',
    'startup ms',
    'finish ms',
  ];
  const acctRows = cfg.workers.map((w) => {
    const ts = runs.filter((r) => r.impl === 'ours' && r.workers === w && r.timings).map((r) => r.timings!);
    const per = (f: (t: WriterTimings) => number): string => fmt(median(ts.map(f)) / n, 3);
    const sumW = (t: WriterTimings, k: 'readMs' | 'decodeMs' | 'resizeMs' | 'encodeMs' | 'postMs' | 'busyMs'): number =>
      t.workers.reduce((s, x) => s + x[k], 0);
    const cpuW = (t: WriterTimings): number => t.workers.reduce((s, x) => s + (x.cpuMs ?? 0), 0);
    return [
      `w${w}`,
      per((t) => sumW(t, 'readMs')),
      per((t) => sumW(t, 'decodeMs')),
      per((t) => sumW(t, 'resizeMs')),
      per((t) => sumW(t, 'encodeMs')),
      per((t) => cpuW(t) - sumW(t, 'readMs') - sumW(t, 'decodeMs') - sumW(t, 'resizeMs') - sumW(t, 'encodeMs')),
      per(cpuW),
      fmt(median(ts.map((t) => (100 * sumW(t, 'busyMs')) / (t.wallMs * t.workers.length))), 0),
      per((t) => sumW(t, 'postMs')),
      per((t) => t.main.cpuMs ?? 0),
      per((t) => t.main.placeMs),
      per((t) => t.main.pageWriteMs),
      fmt(median(ts.map((t) => max(t.workers.map((x) => x.startupMs)))), 0),
      fmt(median(ts.map((t) => t.main.finishMs)), 0),
    ];
  });
  lines.push(renderTable(acctHeaders, acctRows));
  lines.push(
    '  worker other = worker CPU not in the four stages (JS per sample, the label field, message building); busy % = wall inside chunks / (wall x workers)',
  );
  lines.push(
    '  main CPU covers the whole write on the main thread (chunking, receiving results, placing, page copies); startup = slowest worker to load; finish = tables, header, fsync, rename',
  );
  lines.push('');
  lines.push(`one thread, step by step, CPU ms per image (${cfg.stageImages} images, second pass):`);
  const o = stages.ours;
  const f = stages.ffcv;
  const stageRows = [
    [
      'ours (libjpeg-turbo decode, exact INTER_AREA, libjpeg-turbo encode)',
      fmt(o.read, 3),
      fmt(o.decode, 3),
      fmt(o.resize, 3),
      fmt(o.encode, 3),
      fmt(o.read + o.decode + o.resize + o.encode, 3),
    ],
  ];
  if (f)
    stageRows.push([
      'FFCV (PIL open+convert, np.asarray, cv2 resize, cv2 imencode)',
      fmt(f.open, 3),
      fmt(f.decode + f.asarray, 3),
      fmt(f.resize, 3),
      fmt(f.encode, 3),
      fmt(f.open + f.decode + f.asarray + f.resize + f.encode, 3),
    ]);
  lines.push(renderTable(['stack', 'read/open', 'decode', 'resize', 'encode', 'total'], stageRows));
  lines.push(`total benchmark time ${fmt(totalS)} s`);
  return lines.join('\n');
}
