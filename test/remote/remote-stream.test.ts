import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServers, type RemoteServers } from '../helpers/remote-servers.js';

/**
 * `build|merge -o s3://…` streamed into a multipart upload as the file is written, against
 * s3rver behind the test proxy (which adds AbortMultipartUpload and ListMultipartUploads,
 * missing from s3rver). What is checked: the object is the local build's bytes; the local
 * scratch stays at the head (a few MiB), not the file; shards built straight to s3 merge
 * s3 → s3 into the unsharded file; and a signal in any phase of the upload exits
 * 128 + n, leaves no multipart upload, and leaves at the key exactly what the message says.
 */
const BETON = resolve(__dirname, '../../bin/beton.js');
const dir = mkdtempSync(join(tmpdir(), 'beton-remote-stream-'));
const MB = 1_000_000;
let srv: RemoteServers;
let env: NodeJS.ProcessEnv;

/** A .npy of `rows` uint8 rows of `width` bytes (seeded): a table source whose build is mostly page bytes. */
function npy(path: string, rows: number, width: number, seed: number): void {
  const header = `{'descr': '|u1', 'fortran_order': False, 'shape': (${rows}, ${width}), }`;
  const pad = 64 - ((10 + header.length + 1) % 64);
  const h = Buffer.from(header + ' '.repeat(pad) + '\n', 'latin1');
  const pre = Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, h.length & 255, h.length >> 8]);
  const body = Buffer.allocUnsafe(rows * width);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < body.length; i += 4) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    body.writeUInt32LE(x >>> 0, i);
  }
  writeFileSync(path, Buffer.concat([pre, h, body]));
}

beforeAll(async () => {
  srv = await startServers(['out']);
  // Through the proxy: s3rver alone cannot abort a multipart upload.
  env = { ...process.env, ...srv.env(srv.proxy) };
  npy(join(dir, 'big.npy'), 110, MB, 7);
  npy(join(dir, 'small.npy'), 24, MB, 9);
  npy(join(dir, 'tiny.npy'), 12, MB, 11);
}, 60_000);

afterAll(async () => {
  await srv?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const beton = (args: string[], extra: NodeJS.ProcessEnv = {}): ReturnType<typeof spawnSync> =>
  spawnSync('timeout', ['-k', '5', '120', process.execPath, BETON, ...args], { env: { ...env, ...extra }, encoding: 'utf8', cwd: dir });

/** Disk blocks in use under `root` (what `du` counts: sparse files count their written bytes only). */
function diskUse(root: string): number {
  let total = 0;
  const walk = (d: string): void => {
    let names: string[];
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
        // removed while walking
      }
    }
  };
  walk(root);
  return total;
}

describe('build|merge -o s3:// streams', () => {
  it('a 115 MB build: the object is the local build, local scratch stays under 5% of it', async () => {
    const local = join(dir, 'big.beton');
    const a = beton(['build', 'big.npy', '-o', local]);
    expect(a.status, String(a.stderr)).toBe(0);
    const size = statSync(local).size;
    expect(size).toBeGreaterThan(110 * MB);
    const scratch = join(dir, 'scratch-big');
    mkdirSync(scratch);
    const child = spawn('timeout', ['-k', '5', '150', process.execPath, BETON, 'build', 'big.npy', '-o', 's3://out/sets/big.beton'], {
      env: { ...env, TMPDIR: scratch },
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, diskUse(scratch))), 25);
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    clearInterval(sampler);
    expect(code, stderr).toBe(0);
    const obj = await srv.get('out', 'sets/big.beton');
    expect(obj?.byteLength).toBe(size);
    expect(Buffer.from(obj!).equals(readFileSync(local))).toBe(true);
    expect(await srv.get('out', 'sets/big.beton.manifest.json')).not.toBeNull();
    // The head (first page, 8 MiB) and the tail: not the file.
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThan(0.05 * size);
    expect(readdirSync(scratch)).toEqual([]);
    expect(await srv.uploads('out')).toBe(0);
  }, 120_000);

  it('--shard k/N straight to s3://, then merge s3:// → s3://: the unsharded build, byte for byte', async () => {
    const local = join(dir, 'small.beton');
    const opts = ['--page-size', String(2 ** 21)];
    const a = beton(['build', 'small.npy', '-o', local, ...opts]);
    expect(a.status, String(a.stderr)).toBe(0);
    for (const k of [0, 1]) {
      const r = beton(['build', 'small.npy', '-o', `s3://out/shards/shard-${k}.beton`, '--shard', `${k}/2`, ...opts], {
        BETON_UPLOAD_PART_SIZE: String(5 * 2 ** 20),
      });
      expect(r.status, String(r.stderr)).toBe(0);
    }
    const m = beton(['merge', 's3://out/shards/shard-0.beton', 's3://out/shards/shard-1.beton', '-o', 's3://out/merged.beton'], {
      BETON_UPLOAD_PART_SIZE: String(5 * 2 ** 20),
    });
    expect(m.status, String(m.stderr)).toBe(0);
    const merged = await srv.get('out', 'merged.beton');
    expect(Buffer.from(merged!).equals(readFileSync(local))).toBe(true);
    expect(await srv.uploads('out')).toBe(0);
  }, 120_000);

  it('--shards N (job files for local outputs) and --check (reads the output) to s3:// are refused in one line', () => {
    const r = beton(['build', 'small.npy', '-o', 's3://out/x.beton', '--shards', '2', '--emit', 'slurm']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--shard k\/N -o s3:/);
    const c = beton(['build', 'small.npy', '-o', 's3://out/x.beton', '--check']);
    expect(c.status).toBe(2);
    expect(c.stderr).toMatch(/--check reads the output file/);
  });
});

/** The phases of an upload (core/remote/upload-phase.ts) and whether the object exists once a signal lands there. */
const PHASES: Array<{ phase: string; complete: boolean }> = [
  { phase: 'create', complete: false },
  { phase: 'build', complete: false },
  { phase: 'part', complete: false },
  { phase: 'rest', complete: false },
  { phase: 'head', complete: false },
  { phase: 'manifest', complete: false },
  { phase: 'complete', complete: false },
  { phase: 'completed', complete: true },
  { phase: 'verify', complete: true },
];
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

interface Interrupted {
  code: number | null;
  /** The signal that ended the process (Node's default action, after the guard was removed). */
  signal: NodeJS.Signals | null;
  stderr: string;
}

/**
 * Runs a streamed build of tiny.npy (12 MiB; 2 MiB pages, 5 MiB parts: part 1, a streamed part, the tail) to `key`,
 * and sends `sig` once stderr shows `phase` (paused there), or `delayMs` after the upload's
 * first phase (its signal guard is in place by then: earlier, Node's default kills it).
 */
async function interrupt(key: string, sig: NodeJS.Signals, at: { phase: string } | { delayMs: number }): Promise<Interrupted> {
  const scratch = mkdtempSync(join(dir, 'scratch-'));
  const child = spawn(
    process.execPath,
    [BETON, 'build', 'tiny.npy', '-o', `s3://out/${key}`, '--page-size', String(2 ** 21), '--workers', '1'],
    {
      env: {
        ...env,
        TMPDIR: scratch,
        BETON_UPLOAD_TRACE: '1',
        BETON_UPLOAD_PART_SIZE: String(5 * 2 ** 20),
        ...('phase' in at ? { BETON_UPLOAD_PAUSE: `${at.phase}:30000` } : {}),
      },
      cwd: dir,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  let sent = false;
  const send = (): void => {
    if (sent) return;
    sent = true;
    child.kill(sig);
  };
  const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
    if ('phase' in at && stderr.includes(`upload phase ${at.phase}\n`)) send();
    if ('delayMs' in at && !timed && stderr.includes('upload phase create\n')) timed = setTimeout(send, at.delayMs);
  });
  let timed: NodeJS.Timeout | undefined;
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((r) => child.on('exit', (c, s) => r([c, s])));
  clearTimeout(killer);
  expect(readdirSync(scratch), 'the scratch folder is emptied').toEqual([]);
  rmSync(scratch, { recursive: true, force: true });
  return { code, signal, stderr };
}

/** What a run left: the message and the bucket agree, no multipart upload is left, the exit code is 128 + n. */
async function expectExact(key: string, sig: NodeJS.Signals, r: Interrupted, local: Buffer): Promise<'object' | 'nothing' | 'finished'> {
  const obj = await srv.get('out', key);
  const manifest = await srv.get('out', `${key}.manifest.json`);
  // Runs go two or three at a time: this run's key only (the bucket is checked after all of them).
  expect(await srv.uploads('out', key), r.stderr).toBe(0);
  if (r.code === 0 || (r.code === null && r.signal === sig)) {
    // The signal came after the command had finished (random timing only): after the guard
    // was removed it ends the process by Node's default, with the object complete and verified.
    if (r.code === null) expect(r.stderr, 'the default action only after the upload was verified').toMatch(/upload phase verify\n/);
    expect(Buffer.from(obj!).equals(local)).toBe(true);
    return 'finished';
  }
  expect(r.code, r.stderr).toBe(128 + constants.signals[sig]);
  expect(r.stderr).toMatch(/error \[INTERRUPTED\]/);
  expect(r.stderr).not.toMatch(/REMOTE_UPLOAD_FAILED|INTERNAL|\n\s+at /);
  if (/the complete object is at s3:\/\//.test(r.stderr)) {
    expect(obj, r.stderr).not.toBeNull();
    expect(Buffer.from(obj!).equals(local)).toBe(true);
    expect(manifest, 'the manifest went up before the object completed').not.toBeNull();
    return 'object';
  }
  expect(r.stderr).toMatch(/nothing was written at s3:\/\/out\//);
  expect(obj, r.stderr).toBeNull();
  expect(manifest, r.stderr).toBeNull();
  return 'nothing';
}

describe('a signal during any phase of an upload is exact', () => {
  let local: Buffer;
  beforeAll(() => {
    const out = join(dir, 'fuzz-local.beton');
    const a = beton(['build', 'tiny.npy', '-o', out, '--page-size', String(2 ** 21), '--workers', '1']);
    expect(a.status, String(a.stderr)).toBe(0);
    local = readFileSync(out);
  }, 60_000);

  it('each phase × SIGINT/SIGTERM/SIGHUP (27 runs): exit 128 + n, the key holds what the message says, no upload left', async () => {
    const outcomes: string[] = [];
    let n = 0;
    for (const { phase, complete } of PHASES) {
      // Two or three runs at a time: each is a node process mostly waiting on its pause.
      await Promise.all(
        SIGNALS.map(async (sig) => {
          // A prefix each: s3rver removes a key's emptied folder on delete, racing another run's put into it.
          const key = `fuzz-${n++}/${phase}-${sig}.beton`;
          const r = await interrupt(key, sig, { phase });
          const got = await expectExact(key, sig, r, local);
          expect(got, `${phase} ${sig}: ${r.stderr}`).toBe(complete ? 'object' : 'nothing');
          outcomes.push(`${phase}/${sig}: ${got}`);
        }),
      );
    }
    expect(outcomes).toHaveLength(27);
    expect(await srv.uploads('out')).toBe(0);
  }, 300_000);

  it('signals at random times (8 runs) are as exact', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 8; i++) {
      const sig = SIGNALS[i % 3]!;
      const key = `random-${i}/x.beton`;
      const r = await interrupt(key, sig, { delayMs: 300 + ((i * 997) % 2500) });
      seen.add(await expectExact(key, sig, r, local));
    }
    expect(seen.size).toBeGreaterThan(0);
    expect(await srv.uploads('out')).toBe(0);
  }, 240_000);
});
