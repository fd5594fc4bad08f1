/**
 * A streamed build to s3:// against the old way (build locally, then upload), on s3rver on
 * loopback:
 *
 *   npm run bench -- stream-upload [--quick] [--mb N] [--json FILE]
 *
 * The source is a seeded .npy of N rows of 1 MB (default 1100: a 1.1 GB output; --quick
 * 200), built with `beton build`:
 *  - local: `build SRC -o local.beton` (the bytes every other case must equal);
 *  - local + upload: that file sent with `beton cp` (what `build -o s3://` did before);
 *  - streamed: `build SRC -o s3://…` with its TMPDIR a fresh folder whose disk use is
 *    sampled every 20 ms (blocks, as du counts them), and the child's peak RSS (VmHWM).
 * The streamed object is read back and hashed against the local file. Prints a table, then
 * one JSON line. s3rver itself writes every part to its disk and copies them on completion:
 * the times include that server's work, which real S3 does elsewhere.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { benchMain, intSetting, isEntryPoint, runAsScript, type BenchMain } from './lib/cli.js';
import { benchScratchDir, repoRoot } from './lib/repo.js';
import { renderTable } from './lib/table.js';

const HELP = `npm run bench -- stream-upload [options]
  --mb N        output size in MB (rows of 1 MB; default 1100, --quick 200)
  --quick       a 200 MB output
  --json FILE   also write the result as JSON`;

interface Config {
  mb: number;
  jsonFile: string | undefined;
}

function parse(argv: string[]): Config | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: { mb: { type: 'string' }, quick: { type: 'boolean' }, json: { type: 'string' }, help: { type: 'boolean' } },
  });
  if (values.help) return 'help';
  return { mb: intSetting(values.mb, 'mb', 'BENCH_STREAM_MB', values.quick ? 200 : 1100), jsonFile: values.json };
}

/** A seeded .npy of `rows` uint8 rows of 1,000,000 bytes (written in 64 MB pieces). */
function npy(path: string, rows: number): void {
  const width = 1_000_000;
  const header = `{'descr': '|u1', 'fortran_order': False, 'shape': (${rows}, ${width}), }`;
  const pad = 64 - ((10 + header.length + 1) % 64);
  const h = Buffer.from(header + ' '.repeat(pad) + '\n', 'latin1');
  const pre = Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, h.length & 255, h.length >> 8]);
  writeFileSync(path, Buffer.concat([pre, h]));
  let x = 0x9e3779b9;
  const piece = Buffer.allocUnsafe(64 * width);
  for (let done = 0; done < rows; done += 64) {
    const n = Math.min(64, rows - done) * width;
    for (let i = 0; i < n; i += 4) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      piece.writeUInt32LE(x >>> 0, i);
    }
    writeFileSync(path, piece.subarray(0, n), { flag: 'a' });
  }
}

async function startS3(directory: string): Promise<{ endpoint: string; child: ChildProcess }> {
  const script = `import S3rver from 's3rver';
const s = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: ${JSON.stringify(directory)}, configureBuckets: [{ name: 'bench' }] });
const { port } = await s.run();
process.stdout.write(JSON.stringify({ port }) + '\\n');`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: repoRoot(), stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once('data', (b: Buffer) => resolve((JSON.parse(b.toString()) as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`s3rver exited with ${code}`)));
  });
  return { endpoint: `http://127.0.0.1:${port}`, child };
}

function diskUse(root: string): number {
  let total = 0;
  const walk = (d: string): void => {
    let names: string[] = [];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const n of names) {
      try {
        const s = statSync(join(d, n));
        if (s.isDirectory()) walk(join(d, n));
        else total += s.blocks * 512;
      } catch {
        // removed meanwhile
      }
    }
  };
  walk(root);
  return total;
}

/** The kB value of `field` in /proc/PID/status, or 0. */
function procStatus(pid: number, field: string): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

interface RunFigures {
  seconds: number;
  peakScratch: number;
  peakRss: number;
}

/** Runs `beton ARGS` (node directly: its pid is the one sampled), with scratch disk use and RSS sampled. */
async function beton(args: string[], env: NodeJS.ProcessEnv, scratch: string | null): Promise<RunFigures> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [join(repoRoot(), 'bin/beton.js'), ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  let peakScratch = 0;
  let peakRss = 0;
  const sample = (): void => {
    if (scratch) peakScratch = Math.max(peakScratch, diskUse(scratch));
    peakRss = Math.max(peakRss, procStatus(child.pid!, 'VmHWM'));
  };
  const timer = setInterval(sample, 20);
  const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
  clearInterval(timer);
  if (code !== 0) throw new Error(`beton ${args.join(' ')} exited ${code}: ${stderr}`);
  return { seconds: (performance.now() - t0) / 1000, peakScratch, peakRss };
}

async function sha256File(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const c of createReadStream(path)) h.update(c as Buffer);
  return h.digest('hex');
}

async function run(cfg: Config): Promise<number> {
  const base = join(benchScratchDir(), 'stream-upload');
  mkdirSync(base, { recursive: true });
  const src = join(base, `rows-${cfg.mb}.npy`);
  if (!existsSync(src)) npy(src, cfg.mb);
  const work = join(base, 'run');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const s3dir = join(work, 's3rver');
  mkdirSync(s3dir);
  const { endpoint, child } = await startS3(s3dir);
  const env = {
    ...process.env,
    AWS_ENDPOINT_URL_S3: endpoint,
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    AWS_REGION: 'us-east-1',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  try {
    const local = join(work, 'local.beton');
    const build = await beton(['build', src, '-o', local], env, null);
    const size = statSync(local).size;
    const upload = await beton(['cp', local, 's3://bench/copied.beton'], env, null);
    const scratch = join(work, 'tmp');
    mkdirSync(scratch);
    const streamed = await beton(['build', src, '-o', 's3://bench/streamed.beton'], { ...env, TMPDIR: scratch }, scratch);
    // Read back through the CLI's checked download, then compare hashes.
    const back = join(work, 'back.beton');
    await beton(['cp', 's3://bench/streamed.beton', back], env, null);
    const same = (await sha256File(back)) === (await sha256File(local));
    rmSync(back, { force: true });
    const mib = (n: number): string => `${(n / 2 ** 20).toFixed(1)} MiB`;
    console.log(`stream-upload: ${(size / 1e9).toFixed(2)} GB output (${cfg.mb} rows of 1 MB, 8 MiB pages), s3rver on loopback`);
    console.log(
      renderTable(
        ['case', 'seconds', 'peak local scratch', 'peak RSS'],
        [
          ['local build', build.seconds.toFixed(1), mib(size) + ' (the file)', mib(build.peakRss)],
          ['  + beton cp upload', upload.seconds.toFixed(1), '', mib(upload.peakRss)],
          ['local build + upload', (build.seconds + upload.seconds).toFixed(1), mib(size), ''],
          [
            'streamed build -o s3://',
            streamed.seconds.toFixed(1),
            `${mib(streamed.peakScratch)} (${((100 * streamed.peakScratch) / size).toFixed(2)}%)`,
            mib(streamed.peakRss),
          ],
        ],
      ),
    );
    console.log(`streamed object byte-identical to the local build: ${same}`);
    const json = {
      bench: 'stream-upload',
      outputBytes: size,
      localBuildS: build.seconds,
      uploadS: upload.seconds,
      streamedS: streamed.seconds,
      streamedPeakScratchBytes: streamed.peakScratch,
      streamedPeakRssBytes: streamed.peakRss,
      localBuildPeakRssBytes: build.peakRss,
      identical: same,
    };
    console.log(JSON.stringify(json));
    if (cfg.jsonFile) writeFileSync(cfg.jsonFile, JSON.stringify(json, null, 2) + '\n');
    return same && streamed.peakScratch < 0.05 * size ? 0 : 1;
  } finally {
    child.kill();
    rmSync(work, { recursive: true, force: true });
  }
}

export const main: BenchMain = benchMain('stream-upload', HELP, parse, run);
if (isEntryPoint(import.meta.url)) runAsScript(main);
