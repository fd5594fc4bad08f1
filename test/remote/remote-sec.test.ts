import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import { cliInProcess } from '../helpers/cli-in-process.js';
import { fixturePath } from '../helpers/fixtures.js';
import { startHostile, type Hostile } from '../helpers/hostile-server.js';
import { fileBytes, startServers, type RemoteServers } from '../helpers/remote-servers.js';
import { restoreEnv } from '../helpers/restore-env.js';

/*
 * Issue 28, items 1, 3 and 6: what the remote layer refuses, tried as an attacker would,
 * through the CLI (what a user runs) against a hostile node:http range server on loopback
 * (helpers/hostile-server.ts) and s3rver. The CLI runs in this process (core/cli/main.ts:
 * the same exit code and stderr, without a Node start per command); what only a process
 * shows is checked on a spawned CLI once each: the one-line error of a failing command
 * (a refused connection) and the peak RSS of an endless body.
 */
const BETON = resolve(__dirname, '../../bin/beton.js');
const dir = mkdtempSync(join(tmpdir(), 'beton-remote-sec-'));
let h: Hostile;
let srv: RemoteServers;
let env: NodeJS.ProcessEnv;
const NAME = 'images_jpg.beton';
let localDump: string;
const saved = { ...process.env };

beforeAll(async () => {
  [h, srv] = await Promise.all([startHostile(), startServers(['data', 'other'])]);
  await h.serve(NAME, fileBytes(fixturePath('images_jpg')));
  // 15 pages of 256 KiB: a loader's disk cache holds several page files.
  await h.serve('paged.beton', fileBytes(fixturePath('images_raw')));
  env = { ...srv.env(), HOME: dir, BETON_REMOTE_TIMEOUT_MS: '8000', BETON_REMOTE_ATTEMPTS: '2', BETON_DEBUG: '' };
  Object.assign(process.env, env);
  localDump = (await beton('dump', fixturePath('images_jpg'))).stdout;
}, 60_000);

afterAll(async () => {
  restoreEnv(saved);
  await Promise.all([h?.stop(), srv?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** `beton ARGS` in this process (process.env holds `env`). */
async function beton(...args: string[]): Promise<Ran> {
  const r = await cliInProcess(...args);
  return { status: r.code, stdout: r.out, stderr: r.err };
}

/** `beton ARGS` as a child process, for what only a process shows. */
function spawned(args: string[], time = false): Ran {
  const argv = [...(time ? ['/usr/bin/time', '-f', 'maxrss_kb=%M'] : []), process.execPath, BETON, ...args];
  return spawnSync('timeout', ['-k', '5', '120', ...argv], { env: { ...saved, ...env }, encoding: 'utf8', cwd: dir, maxBuffer: 1 << 26 });
}

/** One line on stderr naming the code, no stack trace, exit 1. */
function oneLine(r: { status: number | null; stderr: string }, code: string): void {
  expect(r.status, r.stderr).toBe(1);
  expect(r.stderr).toContain(`[${code}]`);
  expect(r.stderr).not.toMatch(/\n\s+at |Traceback/);
  // The error, its hint, and what was (not) written.
  expect(r.stderr.split('\n').filter(Boolean).length, r.stderr).toBeLessThanOrEqual(3);
}

describe('one URL policy, before any request', () => {
  it('encoded dot segments, backslashes, control bytes, userinfo and dot segments are refused; the server sees no request', async () => {
    const o = h.origin;
    const forms = [
      `${o}/ok/%2e%2e/secret/ok/${NAME}`,
      `${o}/ok/%2E%2E/secret/ok/${NAME}`,
      `${o}/ok/.%2e/secret/ok/${NAME}`,
      `${o}/ok/x\\..\\..\\secret\\ok\\${NAME}`,
      `${o}/ok/.\t./secret/ok/${NAME}`,
      `${o}/ok/ok/${NAME}\n`,
      `http://user:pw@${o.slice(7)}/ok/ok/${NAME}`,
      `${o}/ok/../secret/ok/${NAME}`,
      `${o}/ok/%2fsecret/ok/${NAME}`,
    ];
    await h.log();
    for (const url of forms) {
      const r = await beton('inspect', url);
      oneLine(r, 'REMOTE_BAD_URL');
    }
    expect(await h.log()).toEqual([]);
  }, 120_000);

  it('dot segments in an -o s3:// key are refused: nothing written in another bucket', async () => {
    const r = await beton('cp', fixturePath('images_jpg'), 's3://other/../data/evil.beton');
    oneLine(r, 'REMOTE_BAD_URL');
    expect(await srv.list('data')).not.toContain('evil.beton');
    expect((await srv.list('other')).join()).not.toContain('evil');
  }, 60_000);

  it('redirects: followed within the policy, refused (and named) to plain http elsewhere, to an ambiguous path, or in a loop', async () => {
    const inside = await beton('dump', `${h.origin}/ok/redirect-in/${NAME}`);
    expect(inside.status, inside.stderr).toBe(0);
    expect(inside.stdout.replaceAll(`${h.origin}/ok/redirect-in/${NAME}`, 'F')).toBe(localDump.replaceAll(fixturePath('images_jpg'), 'F'));
    await h.log();
    for (const mode of ['redirect-far', 'redirect-dots', 'redirect-loop']) {
      const r = await beton('inspect', `${h.origin}/ok/${mode}/${NAME}`);
      oneLine(r, 'REMOTE_BAD_URL');
      expect(r.stderr).toMatch(/redirect/);
    }
    const log = await h.log();
    expect(log.filter((l) => l.includes('/secret/'))).toEqual([]);
    // The loop stops after 5 hops (6 requests), each attempt: never an endless chase.
    expect(log.length).toBeLessThanOrEqual(2 + 6 * 2);
  }, 120_000);

  it('a host that refuses connections is one line, not retried as a failing server', async () => {
    // A port nothing listens on.
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const port = (s.address() as { port: number }).port;
    await new Promise((r) => s.close(r));
    // Spawned: the one-line error, exit code 1 and no stack, as a user's shell sees them.
    const r = spawned(['inspect', `http://127.0.0.1:${port}/ok/${NAME}`]);
    oneLine(r, 'REMOTE_UNAVAILABLE');
    expect(r.stderr).toMatch(/cannot connect \(ECONNREFUSED\)/);
  }, 60_000);
});

describe('every remote byte verified', () => {
  for (const mode of ['long206', 'early206', 'whole200', 'gzip']) {
    it(`${mode}: REMOTE_BAD_RANGE naming the URL and the range, never a sample`, async () => {
      const url = `${h.origin}/ok/${mode}/${NAME}`;
      const r = await beton('dump', url);
      oneLine(r, 'REMOTE_BAD_RANGE');
      expect(r.stderr).toContain(url);
      expect(r.stderr).toMatch(/bytes \d+-\d+/);
      expect(r.stdout).not.toContain('"samples"');
    }, 60_000);
  }

  it('a loader over a wrong-range server gives no batch', async () => {
    const r = await beton(
      'bench-loader',
      `${h.origin}/ok/early206/paged.beton`,
      '--workers',
      '1',
      '--batch-size',
      '4',
      '--epochs',
      '1',
      '--json',
    );
    oneLine(r, 'REMOTE_BAD_RANGE');
    expect(r.stdout).toBe('');
  }, 60_000);

  for (const fault of ['long206', 'early206', 'endless206'] as const) {
    it(`S3 (GetObject through a proxy), ${fault}: REMOTE_BAD_RANGE, never a sample`, async () => {
      await srv.put('data', NAME, fileBytes(fixturePath('images_jpg')));
      // Data pages only: the open's first request (bytes from 0) is answered right.
      await srv.fault({ fault, minStart: 1 << 16, times: -1 });
      try {
        process.env.AWS_ENDPOINT_URL_S3 = srv.proxy;
        const r = await beton('dump', `s3://data/${NAME}`);
        oneLine(r, 'REMOTE_BAD_RANGE');
        expect(r.stderr).toContain(`s3://data/${NAME}`);
        expect(r.stdout).not.toContain('"samples"');
      } finally {
        process.env.AWS_ENDPOINT_URL_S3 = env.AWS_ENDPOINT_URL_S3;
        await srv.fault({ fault: 'ok', minStart: 0, times: 0 });
      }
    }, 90_000);
  }

  // The peak RSS of a process, once (a spawned CLI under /usr/bin/time): an endless 200.
  it('endless200: an endless body is refused with a bounded peak RSS (under 300 MB for the CLI)', () => {
    const url = `${h.origin}/ok/endless200/${NAME}`;
    const r = spawned(['inspect', url], true);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toContain('[REMOTE_BAD_RANGE]');
    const kb = Number(/maxrss_kb=(\d+)/.exec(r.stderr)?.[1]);
    expect(kb).toBeGreaterThan(0);
    expect(kb).toBeLessThan(300 * 1024);
  }, 90_000);

  // The endless 206 in this process: its peak RSS may grow by no more than the CLI's bound.
  it('endless206: an endless body is refused with a bounded growth of the peak RSS (under 300 MB)', async () => {
    const peak0 = process.resourceUsage().maxRSS;
    const r = await beton('inspect', `${h.origin}/ok/endless206/${NAME}`);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toContain('[REMOTE_BAD_RANGE]');
    expect(process.resourceUsage().maxRSS - peak0).toBeLessThan(300 * 1024);
  }, 90_000);

  it('a weak ETag is not sent in If-Match: a strict server is read, and equals the local file', async () => {
    await h.log();
    const url = `${h.origin}/ok/weak/${NAME}`;
    const r = await beton('dump', url);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.replaceAll(url, 'F')).toBe(localDump.replaceAll(fixturePath('images_jpg'), 'F'));
    expect((await h.log()).some((l) => l.includes('"ifMatch":"W/'))).toBe(false);
  }, 60_000);

  it('without an ETag, an object replaced after the open is REMOTE_CHANGED naming Last-Modified, never mixed data', async () => {
    await h.reset();
    const r = await beton('dump', `${h.origin}/ok/swap-noetag/${NAME}`);
    oneLine(r, 'REMOTE_CHANGED');
    expect(r.stderr).toMatch(/Last-Modified/);
    expect(r.stdout).toBe('');
  }, 60_000);
});

describe('the disk cache is checked', () => {
  const bench = (cache: string): Promise<Ran> =>
    beton(
      'bench-loader',
      `${h.origin}/ok/ok/paged.beton`,
      '--workers',
      '1',
      '--batch-size',
      '8',
      '--epochs',
      '1',
      '--json',
      '--cache-dir',
      cache,
    );

  it('a page edited at the same size is refetched and replaced; a truncated page is rewritten', async () => {
    const cache = join(dir, 'cache');
    expect((await bench(cache)).status).toBe(0);
    const [sub] = readdirSync(cache);
    const pages = readdirSync(join(cache, sub!))
      .filter((n) => /^p\d+$/.test(n))
      .sort();
    expect(pages.length).toBeGreaterThan(3);
    const edited = join(cache, sub!, pages[1]!);
    const cut = join(cache, sub!, pages[2]!);
    const good = readFileSync(edited);
    const size = statSync(cut).size;
    const bad = Buffer.from(good);
    bad[100] = bad[100]! ^ 0xff;
    writeFileSync(edited, bad);
    truncateSync(cut, size - 100);
    await h.log();
    const r = await bench(cache);
    expect(r.status, r.stderr).toBe(0);
    // The two bad pages, and only they, came from the server again.
    const gets = (await h.log()).filter((l) => l.startsWith('GET /ok/ok/paged.beton'));
    expect(gets.length).toBeGreaterThan(0);
    expect(readFileSync(edited).equals(good)).toBe(true);
    expect(statSync(cut).size).toBe(size);
  }, 120_000);

  it('--cache-dir /proc/self (or a file) is one line, at once', async () => {
    writeFileSync(join(dir, 'a-file'), 'x');
    for (const bad of ['/proc/self', join(dir, 'a-file')]) {
      const t0 = performance.now();
      const r = await bench(bad);
      oneLine(r, 'CACHE_DIR_UNUSABLE');
      expect(r.stderr).toContain('--cache-dir');
      expect(performance.now() - t0).toBeLessThan(30_000);
    }
  }, 90_000);
});

describe('messages', () => {
  it('profile URL --engine ffcv says FFCV reads local files, without a traceback or a --python hint', async () => {
    const r = await beton('profile', `${h.origin}/ok/ok/${NAME}`, '--engine', 'ffcv', '--no-gpu', '--db', join(dir, 'runs.db'));
    oneLine(r, 'ENGINE_UNAVAILABLE');
    expect(r.stderr).toMatch(/local files only.*beton cp/);
    expect(r.stderr).not.toMatch(/--python/);
  }, 60_000);
});
