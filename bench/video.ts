/**
 * Video benchmark: a .beton of per-frame-JPEG clips (VideoClipField) against decoding the
 * same clips from the video files with ffmpeg per sample (seek to the clip start, decode
 * T frames: what a torchvision-style VideoClips loader does), as in the FFCV paper's
 * UCF101 appendix. Reports, for both, the loader start time (ours: Loader.open + first
 * batch; baseline: indexing every video's frames with ffprobe, as VideoClips does before
 * its first clip), the epoch time, and the storage, each as a ratio.
 *
 *   npm run bench -- video [--quick] [--videos N] [--seconds S] [--fps F] [--clip-length T]
 *                          [--workers N] [--batch-size B] [--reps N] [--json FILE]
 *
 * The videos are generated once (ffmpeg's testsrc2 with noise, MPEG-4 part 2 in AVI as
 * UCF101's XviD files, 160x120) under .bench/. Prints a table, then one JSON line
 * (starting with {"bench":"video") for scripts.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  buildDataset,
  ClipSimpleDecoder,
  ffmpegAvailable,
  IntDecoder,
  Loader,
  parseBuildConfig,
  Reader,
  VideoDatasetSource,
  type DecodedClip,
} from '../core/index.js';
import { benchMain, intSetting, isEntryPoint, runAsScript, type BenchMain } from './lib/cli.js';
import { median, round } from './lib/stats.js';
import { benchScratchDir } from './lib/repo.js';
import { renderTable } from './lib/table.js';

const HELP = `npm run bench -- video [options]
  --videos N        videos to generate (default 20, in 4 classes; --quick 4)
  --seconds S       length of each video (default 10; --quick 4)
  --fps F           their frame rate (default 25)
  --clip-length T   frames per clip, also the stride (default 16)
  --workers N       loader workers, and ffmpeg processes at once for the baseline (default 2)
  --batch-size B    (default 16)
  --reps N          epochs measured per loader (default 3; --quick 1); medians are reported
  --json FILE       also write the JSON result there
  --quick           a small smoke run`;

const W = 160;
const H = 120;

interface Config {
  videos: number;
  seconds: number;
  fps: number;
  clipLength: number;
  workers: number;
  batchSize: number;
  reps: number;
  jsonFile: string | undefined;
}

function parse(argv: string[]): Config | null {
  const { values } = parseArgs({
    args: argv,
    options: {
      help: { type: 'boolean' },
      quick: { type: 'boolean' },
      videos: { type: 'string' },
      seconds: { type: 'string' },
      fps: { type: 'string' },
      'clip-length': { type: 'string' },
      workers: { type: 'string' },
      'batch-size': { type: 'string' },
      reps: { type: 'string' },
      json: { type: 'string' },
    },
  });
  if (values.help) return null;
  const q = values.quick === true;
  return {
    videos: intSetting(values.videos, 'videos', 'BENCH_VIDEO_COUNT', q ? 4 : 20),
    seconds: intSetting(values.seconds, 'seconds', 'BENCH_VIDEO_SECONDS', q ? 4 : 10),
    fps: intSetting(values.fps, 'fps', 'BENCH_VIDEO_FPS', 25),
    clipLength: intSetting(values['clip-length'], 'clip-length', 'BENCH_VIDEO_CLIP', 16),
    workers: intSetting(values.workers, 'workers', 'BENCH_WORKERS', 2),
    batchSize: intSetting(values['batch-size'], 'batch-size', 'BENCH_BATCH', 16),
    reps: intSetting(values.reps, 'reps', 'BENCH_REPS', q ? 1 : 3),
    jsonFile: values.json,
  };
}

/** root/class<k>/v<i>.avi, generated once per setting. */
function ensureVideos(cfg: Config): string {
  const root = join(benchScratchDir(), `videos-${cfg.videos}x${cfg.seconds}s-${cfg.fps}fps-${W}x${H}`);
  const done = join(root, '.complete');
  if (existsSync(done)) return root;
  process.stderr.write(`generating ${cfg.videos} videos of ${cfg.seconds} s under ${root} …\n`);
  for (let i = 0; i < cfg.videos; i++) {
    const dir = join(root, `class${i % 4}`);
    mkdirSync(dir, { recursive: true });
    const src = `testsrc2=s=${W}x${H}:r=${cfg.fps}:d=${cfg.seconds},hue=h=${(i * 37) % 360},noise=alls=10:allf=t+u`;
    const r = spawnSync(
      'ffmpeg',
      ['-y', '-v', 'error', '-f', 'lavfi', '-i', src, '-c:v', 'mpeg4', '-q:v', '4', join(dir, `v${String(i).padStart(3, '0')}.avi`)],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    if (r.status !== 0) throw new Error('ffmpeg failed generating the benchmark videos');
  }
  writeFileSync(done, '');
  return root;
}

function videoFiles(root: string): string[] {
  return readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => readdirSync(join(root, d.name)).map((f) => join(root, d.name, f)))
    .sort();
}

/** Runs a command, collecting stdout into one buffer. */
function run(cmd: string, args: string[], expectBytes = 0): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const out = expectBytes > 0 ? new Uint8Array(expectBytes) : null;
    const parts: Buffer[] = [];
    let n = 0;
    let err = '';
    child.stdout.on('data', (b: Buffer) => {
      if (out) out.set(b.subarray(0, Math.max(0, expectBytes - n)), n);
      else parts.push(b);
      n += b.length;
    });
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`${cmd} failed (${code}): ${err.trim().split('\n').at(-1)}`));
      resolve(out ?? new Uint8Array(Buffer.concat(parts)));
    });
  });
}

/** Runs tasks with at most `n` in flight. */
async function pool<T>(tasks: Array<() => Promise<T>>, n: number): Promise<T[]> {
  const out: T[] = new Array<T>(tasks.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, tasks.length) }, async () => {
      while (next < tasks.length) {
        const i = next++;
        out[i] = await tasks[i]!();
      }
    }),
  );
  return out;
}

interface Clip {
  path: string;
  start: number;
}

/** Baseline start: count every video's frames (VideoClips reads all timestamps before the first clip), then list the clips. */
async function baselineIndex(files: string[], cfg: Config): Promise<Clip[]> {
  const counts = await pool(
    files.map((f) => async () => {
      const out = await run('ffprobe', [
        '-v',
        'error',
        '-select_streams',
        'v:0',
        '-count_packets',
        '-show_entries',
        'stream=nb_read_packets',
        '-of',
        'csv=p=0',
        f,
      ]);
      return Number(Buffer.from(out).toString().trim());
    }),
    cfg.workers,
  );
  const clips: Clip[] = [];
  files.forEach((path, v) => {
    for (let s = 0; s + cfg.clipLength <= counts[v]!; s += cfg.clipLength) clips.push({ path, start: s });
  });
  return clips;
}

/** Baseline sample: seek to the clip's first frame and decode T frames of RGB. */
function decodeClip(c: Clip, cfg: Config, frames = cfg.clipLength): Promise<Uint8Array> {
  const args = [
    '-nostdin',
    '-v',
    'error',
    '-ss',
    String(c.start / cfg.fps),
    '-i',
    c.path,
    '-frames:v',
    String(frames),
    '-f',
    'rawvideo',
    '-pix_fmt',
    'rgb24',
    'pipe:1',
  ];
  return run('ffmpeg', args, frames * W * H * 3);
}

function shuffle<T>(xs: T[], seed: number): T[] {
  let s = seed >>> 0;
  const rnd = (): number => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
  return xs;
}

export const main: BenchMain = benchMain('video', HELP, (argv) => parse(argv) ?? 'help', runBenchmark);

async function runBenchmark(cfg: Config): Promise<number> {
  if (!ffmpegAvailable()) {
    console.error('the video benchmark needs ffmpeg and ffprobe (apt-get install ffmpeg)');
    return 1;
  }
  const root = ensureVideos(cfg);
  const files = videoFiles(root);
  const videoBytes = files.reduce((s, f) => s + statSync(f).size, 0);

  // Build the .beton (not compared: a one-time cost; reported for reference).
  const out = join(benchScratchDir(), `video-${cfg.videos}x${cfg.seconds}s-T${cfg.clipLength}.beton`);
  // FFCV's smallest page size: the data region starts a page into the file, so large pages pad small sets.
  const bc = parseBuildConfig({
    source: { type: 'video_folder', path: root, clipLength: cfg.clipLength },
    output: out,
    numWorkers: cfg.workers,
    chunkSize: 8,
    pageSize: 2 ** 21,
  });
  if (!bc.ok) throw new Error(bc.errors.join('\n'));
  const tb = performance.now();
  const built = await buildDataset(bc.value);
  const buildS = (performance.now() - tb) / 1000;
  const betonBytes = statSync(out).size;
  const payloadBytes = Object.values(built.heapBytes).reduce((s, b) => s + b, 0);
  const clipsPerEpoch = built.numSamples;
  process.stderr.write(`built ${out}: ${built.numSamples} clips of ${cfg.clipLength} frames in ${round(buildS, 1)} s\n`);

  // Ours: Loader.open + first batch, then whole epochs.
  const pipelines = { clip: [ClipSimpleDecoder()], label: [IntDecoder()], video_id: null, start_frame: null };
  const t0 = performance.now();
  const loader = await Loader.open(out, {
    batchSize: cfg.batchSize,
    numWorkers: cfg.workers,
    order: 'random',
    seed: 1,
    dropLast: false,
    pipelines,
  });
  let oursStartS = 0;
  const oursEpochs: number[] = [];
  try {
    for (let e = 0; e <= cfg.reps; e++) {
      const te = performance.now();
      let n = 0;
      for await (const b of loader) {
        if (e === 0 && n === 0) oursStartS = (performance.now() - t0) / 1000;
        n += b.sampleIds.length;
      }
      if (n !== clipsPerEpoch) throw new Error(`epoch gave ${n} clips, expected ${clipsPerEpoch}`);
      // Epoch 0 includes the start; it is the warm-up.
      if (e > 0) oursEpochs.push((performance.now() - te) / 1000);
    }
  } finally {
    await loader.close();
  }

  // Baseline: index the videos, then decode every clip with ffmpeg, `workers` at a time.
  const ti = performance.now();
  const clips = await baselineIndex(files, cfg);
  const baseStartS = (performance.now() - ti) / 1000;
  if (clips.length !== clipsPerEpoch) throw new Error(`baseline indexed ${clips.length} clips, the .beton has ${clipsPerEpoch}`);
  const baseEpochs: number[] = [];
  for (let e = 0; e < cfg.reps; e++) {
    const order = shuffle([...clips], e + 1);
    const te = performance.now();
    await pool(
      order.map((c) => () => decodeClip(c, cfg)),
      cfg.workers,
    );
    baseEpochs.push((performance.now() - te) / 1000);
  }
  // What a clip costs ffmpeg before its frames (spawn, open, seek): one frame instead of T.
  const sample = shuffle([...clips], 99).slice(0, Math.min(40, clips.length));
  const tf = performance.now();
  await pool(
    sample.map((c) => () => decodeClip(c, cfg, 1)),
    1,
  );
  const fixedMs = (performance.now() - tf) / sample.length;

  // Same frames? Compare one clip decoded both ways (JPEG q90 against the video's own pixels).
  const src = VideoDatasetSource.openFolder(root, { clipLength: cfg.clipLength });
  const reader = await Reader.open(out);
  let meanAbsDiff = 0;
  try {
    const id = Math.min(5, reader.numSamples - 1);
    const s = reader.read(id) as { clip: DecodedClip; video_id: bigint; start_frame: bigint };
    const ref = await decodeClip({ path: src.items[Number(s.video_id)]!.path, start: Number(s.start_frame) }, cfg);
    let sum = 0;
    for (let k = 0; k < ref.length; k++) sum += Math.abs(ref[k]! - s.clip.data[k]!);
    meanAbsDiff = sum / ref.length;
  } finally {
    reader.close();
  }

  const oursEpoch = median(oursEpochs);
  const baseEpoch = median(baseEpochs);
  const mib = (b: number): string => (b / 2 ** 20).toFixed(1);
  const x = (v: number): string => `${v >= 10 ? v.toFixed(0) : v.toFixed(1)}x`;
  console.log(
    `\n${cfg.videos} videos x ${cfg.seconds} s, ${cfg.fps} fps, ${W}x${H}; clips of ${cfg.clipLength} frames (stride ${cfg.clipLength}): ${clipsPerEpoch} per epoch;` +
      ` ${cfg.workers} workers, batch ${cfg.batchSize}; medians of ${cfg.reps} epoch(s)\n`,
  );
  console.log(
    renderTable(
      ['', '.beton (VideoClipField)', 'ffmpeg per clip', 'ratio'],
      [
        ['loader start (s)', round(oursStartS, 2).toString(), round(baseStartS, 2).toString(), `${x(baseStartS / oursStartS)} faster`],
        ['epoch (s)', round(oursEpoch, 2).toString(), round(baseEpoch, 2).toString(), `${x(baseEpoch / oursEpoch)} faster`],
        ['clips/s', round(clipsPerEpoch / oursEpoch, 0).toString(), round(clipsPerEpoch / baseEpoch, 0).toString(), ''],
        ['storage (MiB)', mib(betonBytes), mib(videoBytes), `${x(betonBytes / videoBytes)} larger`],
        ['  of which clip data', mib(payloadBytes), '', `${x(payloadBytes / videoBytes)} larger`],
      ],
    ),
  );
  console.log(
    `\nbuild: ${round(buildS, 1)} s (${round(clipsPerEpoch / buildS, 0)} clips/s); ffmpeg's fixed cost per clip (spawn, open, seek, 1 frame): ${round(fixedMs, 1)} ms;` +
      ` mean |pixel difference| between the two decodes of one clip: ${round(meanAbsDiff, 2)} levels (JPEG q90)`,
  );
  const result = {
    bench: 'video',
    config: { ...cfg, width: W, height: H },
    clipsPerEpoch,
    ours: { startS: oursStartS, epochS: oursEpochs, bytes: betonBytes, payloadBytes, buildS },
    baseline: { startS: baseStartS, epochS: baseEpochs, bytes: videoBytes, fixedMsPerClip: fixedMs },
    ratios: { start: baseStartS / oursStartS, epoch: baseEpoch / oursEpoch, storage: betonBytes / videoBytes },
    meanAbsDiff,
  };
  console.log(JSON.stringify(result));
  if (cfg.jsonFile) writeFileSync(cfg.jsonFile, JSON.stringify(result, null, 2) + '\n');
  return 0;
}

if (isEntryPoint(import.meta.url)) runAsScript(main);
