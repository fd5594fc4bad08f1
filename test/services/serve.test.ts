// `beton serve`: the contract over HTTP + server-sent events, its token, its confinement
// to the folders given (more in serve-confinement.test.ts), the static app with its CSP, jobs with progress and exactly one
// jobs:finished, cancellation, and the CLI (binds loopback, prints a URL with a token,
// stops on SIGTERM).
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiEvent, Envelope, FinishedEvent, FsListing } from '../../core/api/contract.js';
import { BetonService } from '../../core/services/beton-service.js';
import { CSP, startHttpServer } from '../../core/services/http-server.js';

const ROOT = resolve(__dirname, '../..');
const SAMPLE = join(ROOT, 'assets/sample-images');
const base = mkdtempSync(join(tmpdir(), 'beton-serve-'));
const root = join(base, 'root'); // the folder the server may open
const outside = join(base, 'outside');
const staticDir = join(base, 'app');
let service: BetonService;
let server: Awaited<ReturnType<typeof startHttpServer>>;
let origin: string;

function imagesOf(cls: string): string[] {
  return readdirSync(join(SAMPLE, cls)).sort();
}

beforeAll(async () => {
  for (const d of [root, outside, staticDir, join(staticDir, 'assets')]) mkdirSync(d, { recursive: true });
  // A tiny image folder: two classes, three images each.
  for (const cls of ['circles', 'squares']) {
    mkdirSync(join(root, 'tiny', cls), { recursive: true });
    for (const f of imagesOf(cls).slice(0, 3)) copyFileSync(join(SAMPLE, cls, f), join(root, 'tiny', cls, f));
  }
  // A larger one to cancel: every sample image, 25 times over.
  for (const cls of ['circles', 'squares', 'stripes', 'gradients']) {
    mkdirSync(join(root, 'big', cls), { recursive: true });
    for (const f of imagesOf(cls)) for (let k = 0; k < 25; k++) copyFileSync(join(SAMPLE, cls, f), join(root, 'big', cls, `${k}_${f}`));
  }
  writeFileSync(join(outside, 'secret.txt'), 'not for the browser');
  symlinkSync(outside, join(root, 'link-out'));
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>Beton Studio</title><div id="root"></div>');
  writeFileSync(join(staticDir, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(join(base, 'beside-app.txt'), 'outside the static folder');
  service = new BetonService({ roots: [root], host: 'server', dbPath: join(base, 'runs.sqlite') });
  server = await startHttpServer({ service, staticDir });
  origin = new URL(server.url).origin;
});

afterAll(async () => {
  service?.close();
  await server?.close();
  rmSync(base, { recursive: true, force: true });
});

type Auth = 'header' | 'bearer' | 'query' | 'none' | 'wrong';

async function api<T = unknown>(
  method: string,
  params: unknown = {},
  auth: Auth = 'header',
): Promise<{ status: number; body: Envelope<T> }> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (auth === 'header') headers['X-Beton-Token'] = server.token;
  if (auth === 'bearer') headers.Authorization = `Bearer ${server.token}`;
  if (auth === 'wrong') headers['X-Beton-Token'] = server.token.replace(/.$/, (c) => (c === '0' ? '1' : '0'));
  const q = auth === 'query' ? `?token=${server.token}` : '';
  const res = await fetch(`${origin}/api/${method}${q}`, { method: 'POST', headers, body: JSON.stringify(params) });
  return { status: res.status, body: (await res.json()) as Envelope<T> };
}

/** A raw GET (fetch would normalize `..` away before sending). */
function rawGet(path: string): Promise<{ status: number; headers: IncomingMessage['headers']; body: string }> {
  const u = new URL(origin);
  return new Promise((resolveGet, reject) => {
    const req = httpRequest({ host: u.hostname, port: u.port, path, method: 'GET' }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolveGet({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Subscribes to /api/events and collects every event. */
function openEvents(): Promise<{ events: ApiEvent[]; close: () => void }> {
  const u = new URL(origin);
  return new Promise((resolveOpen, reject) => {
    const events: ApiEvent[] = [];
    const req = httpRequest({ host: u.hostname, port: u.port, path: `/api/events?token=${server.token}`, method: 'GET' }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`events: HTTP ${res.statusCode}`));
      expect(res.headers['content-type']).toContain('text/event-stream');
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buf += chunk;
        let i: number;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const name = /^event: (.+)$/m.exec(block)?.[1];
          const data = /^data: (.+)$/m.exec(block)?.[1];
          if (name && data) events.push({ event: name, data: JSON.parse(data) } as ApiEvent);
        }
      });
      resolveOpen({ events, close: () => req.destroy() });
    });
    req.on('error', (e) => {
      if ((e as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(e);
    });
    req.end();
  });
}

async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const finishedOf = (events: ApiEvent[], jobId: string): FinishedEvent[] =>
  events
    .filter((e): e is Extract<ApiEvent, { event: 'jobs:finished' }> => e.event === 'jobs:finished' && e.data.jobId === jobId)
    .map((e) => e.data);

describe('beton serve: the token', () => {
  it('every /api/ request without the right token is 401, before routing', async () => {
    for (const auth of ['none', 'wrong'] as const) {
      for (const m of ['env.info', 'fs.browse', 'no.such.method', 'events']) {
        const r = await api(m, {}, auth);
        expect(r.status, `${auth} ${m}`).toBe(401);
        expect(r.body.ok === false && r.body.error.code).toBe('UNAUTHORIZED');
      }
    }
    for (const path of ['/api/events', '/api/env.info', '/api/', '/api/../api/env.info', `/api/env.info?token=${'0'.repeat(48)}`]) {
      expect((await rawGet(path)).status, path).toBe(401);
    }
  });

  it('the token works as X-Beton-Token and as a Bearer token; in the query only for the event stream', async () => {
    for (const auth of ['header', 'bearer'] as const) {
      const r = await api<{ host: string; roots: string[] }>('env.info', {}, auth);
      expect(r.status, auth).toBe(200);
      expect(r.body.ok && r.body.value.host).toBe('server');
      expect(r.body.ok && r.body.value.roots).toEqual([realpathSync(root)]);
    }
    // A query string ends up in logs and history; only EventSource needs it (serve-confinement.test.ts).
    expect((await api('env.info', {}, 'query')).status).toBe(401);
    const es = await openEvents();
    es.close();
  });

  it('prints a loopback URL carrying the token', () => {
    const u = new URL(server.url);
    expect(u.hostname).toBe('127.0.0.1');
    expect(u.searchParams.get('token')).toBe(server.token);
    expect(server.token).toMatch(/^[0-9a-f]{48}$/);
  });
});

describe('beton serve: confinement to the given folders', () => {
  it('fs.browse lists the root (and defaults to it)', async () => {
    for (const params of [{ path: root }, {}]) {
      const r = await api<FsListing>('fs.browse', params);
      expect(r.status).toBe(200);
      if (!r.body.ok) throw new Error(r.body.error.message);
      expect(r.body.value.path).toBe(realpathSync(root));
      expect(r.body.value.parent).toBeNull(); // the root's parent is not browsable
      const byName = new Map(r.body.value.entries.map((e) => [e.name, e]));
      expect(byName.get('tiny')).toMatchObject({ kind: 'dir', role: 'dir' });
      expect(byName.get('big')).toMatchObject({ kind: 'dir' });
    }
    const inner = await api<FsListing>('fs.browse', { path: join(root, 'tiny', 'circles') });
    expect(inner.body.ok && inner.body.value.entries.map((e) => e.role)).toEqual(['image', 'image', 'image']);
    expect(inner.body.ok && inner.body.value.parent).toBe(join(realpathSync(root), 'tiny'));
  });

  it('paths outside — absolute, ../, or through a symlink — are FORBIDDEN (403)', async () => {
    const attempts: Array<[string, unknown]> = [
      ['fs.browse', { path: '/etc' }],
      ['fs.browse', { path: '../' }],
      ['fs.browse', { path: '..' }],
      ['fs.browse', { path: join(root, '..') }],
      ['fs.browse', { path: `${root}/tiny/../../outside` }],
      ['fs.browse', { path: join(root, 'link-out') }],
      ['fs.browse', { path: 'link-out' }],
      ['datasets.inspect', { path: join(root, 'link-out', 'secret.txt') }],
      ['datasets.inspect', { path: '/etc/passwd' }],
      ['sources.detect', { path: outside }],
      ['builds.start', { config: { source: { type: 'image_folder', path: join(root, 'tiny') }, output: join(outside, 'x.beton') } }],
      ['builds.start', { config: { source: { type: 'image_folder', path: join(root, 'link-out') }, output: join(root, 'x.beton') } }],
    ];
    for (const [m, p] of attempts) {
      const r = await api(m, p);
      expect(r.status, `${m} ${JSON.stringify(p)}`).toBe(403);
      expect(r.body.ok === false && r.body.error.code).toBe('FORBIDDEN');
    }
    expect(existsSync(join(outside, 'x.beton'))).toBe(false);
  });
});

describe('beton serve: request validation', () => {
  it('bad params are 400 and name the key', async () => {
    const cases: Array<[string, unknown, string]> = [
      ['datasets.preview', { path: join(root, 'a.beton'), count: 1000 }, 'count'],
      ['fs.browse', { path: 5 }, 'path'],
      ['fs.browse', { nope: 1 }, 'nope'],
      ['runs.get', { id: -1 }, 'id'],
      ['builds.start', { config: { source: { type: 'image_folder', path: root }, output: 'o.beton', pageSize: 1000 } }, 'config.pageSize'],
    ];
    for (const [m, p, key] of cases) {
      const r = await api(m, p);
      expect(r.status, m).toBe(400);
      expect(r.body.ok === false && r.body.error.code).toBe('BAD_REQUEST');
      expect(r.body.ok === false && r.body.error.message).toContain(key);
    }
  });

  it('a body that is not JSON is 400; an unknown method 404; GET on a method 405', async () => {
    const notJson = await fetch(`${origin}/api/env.info`, { method: 'POST', headers: { 'X-Beton-Token': server.token }, body: '{nope' });
    expect(notJson.status).toBe(400);
    expect((await api('fs.delete', {})).status).toBe(404);
    const get = await fetch(`${origin}/api/env.info`, { headers: { 'X-Beton-Token': server.token } });
    expect(get.status).toBe(405);
  });

  it('a body over 1 MiB is 413', async () => {
    const big = JSON.stringify({ path: 'x'.repeat((1 << 20) + 10) });
    const u = new URL(origin);
    // Declared up front (Content-Length), and streamed without a length (chunked).
    for (const declared of [true, false]) {
      const status = await new Promise<number>((resolveStatus, reject) => {
        const headers: Record<string, string | number> = { 'X-Beton-Token': server.token, 'Content-Type': 'application/json' };
        if (declared) headers['Content-Length'] = Buffer.byteLength(big);
        const req = httpRequest({ host: u.hostname, port: u.port, path: '/api/fs.browse', method: 'POST', headers }, (res) => {
          res.resume();
          resolveStatus(res.statusCode ?? 0);
        });
        req.on('error', reject);
        if (declared) req.end(big);
        else {
          for (let i = 0; i < big.length; i += 64 * 1024) req.write(big.slice(i, i + 64 * 1024));
          req.end();
        }
      });
      expect(status, declared ? 'Content-Length' : 'chunked').toBe(413);
    }
    // The server is still fine afterwards.
    expect((await api('env.info')).status).toBe(200);
  });
});

describe('beton serve: the app', () => {
  it('GET / serves index.html with the CSP; assets are served; unknown routes get the app', async () => {
    const r = await rawGet('/');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toContain('text/html');
    expect(r.headers['content-security-policy']).toBe(CSP);
    expect(r.headers['x-content-type-options']).toBe('nosniff');
    expect(r.body).toContain('Beton Studio');
    const js = await rawGet('/assets/app.js');
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toContain('javascript');
    const route = await rawGet('/runs/compare');
    expect(route.status).toBe(200);
    expect(route.body).toContain('Beton Studio');
  });

  it('path traversal in static paths is refused', async () => {
    for (const p of [
      '/..%2fbeside-app.txt',
      '/%2e%2e%2fbeside-app.txt',
      '/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
      '/..%2f..%2f..%2f..%2fetc%2fpasswd',
      '/assets/..%2f..%2fbeside-app.txt',
      '/..%5cbeside-app.txt',
    ]) {
      const r = await rawGet(p);
      expect(r.body, p).not.toContain('outside the static folder');
      expect(r.body, p).not.toMatch(/root:.*:0:0:/);
      // Refused, or answered with the app itself (the path resolved inside the app folder).
      const app = r.status === 200 && r.body.includes('Beton Studio');
      expect(app || r.status === 400 || r.status === 403, `${p}: ${r.status}`).toBe(true);
    }
    // Plain `..` is resolved by the URL parser to a path inside the app folder.
    const plain = await rawGet('/../../beside-app.txt');
    expect(plain.body).not.toContain('outside the static folder');
  });
});

describe('beton serve: jobs over server-sent events', () => {
  it('builds.start: jobs:progress, then exactly one jobs:finished (ok), and the file exists', async () => {
    const es = await openEvents();
    try {
      const out = join(root, 'tiny.beton');
      const r = await api<{ jobId: string }>('builds.start', {
        config: { source: { type: 'image_folder', path: join(root, 'tiny') }, output: out, numWorkers: 1 },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      if (!r.body.ok) throw new Error(r.body.error.message);
      const { jobId } = r.body.value;
      await until(() => finishedOf(es.events, jobId).length > 0, 60_000, 'jobs:finished');
      await new Promise((res) => setTimeout(res, 300)); // a second finished would arrive by now
      const finished = finishedOf(es.events, jobId);
      expect(finished).toHaveLength(1);
      expect(finished[0]).toMatchObject({ kind: 'build', status: 'ok' });
      expect((finished[0]!.result as { numSamples: number }).numSamples).toBe(6);
      const progress = es.events.filter((e) => e.event === 'jobs:progress' && e.data.jobId === jobId);
      expect(progress.length).toBeGreaterThan(0);
      expect(progress.at(-1)!.data).toMatchObject({ kind: 'build', done: 6, total: 6 });
      // The writer's windowed rate travels with it (null: this build is shorter than its window).
      expect(progress.at(-1)!.data).toHaveProperty('recentRate');
      // Progress comes before the end.
      expect(es.events.findIndex((e) => e.event === 'jobs:progress' && e.data.jobId === jobId)).toBeLessThan(
        es.events.findIndex((e) => e.event === 'jobs:finished' && e.data.jobId === jobId),
      );
      expect(existsSync(out)).toBe(true);
      const inspect = await api<{ numSamples: number }>('datasets.inspect', { path: out });
      expect(inspect.body.ok && inspect.body.value.numSamples).toBe(6);
      // The build was recorded.
      expect(es.events.some((e) => e.event === 'runs:changed')).toBe(true);
    } finally {
      es.close();
    }
  });

  it('builds.cancel: jobs:finished says cancelled and no output file is left', async () => {
    const es = await openEvents();
    try {
      const out = join(root, 'big.beton');
      const r = await api<{ jobId: string }>('builds.start', {
        config: {
          source: { type: 'image_folder', path: join(root, 'big') },
          output: out,
          numWorkers: 1,
          chunkSize: 4,
          image: { writeMode: 'jpg', jpegQuality: 95 },
        },
      });
      if (!r.body.ok) throw new Error(r.body.error.message);
      const { jobId } = r.body.value;
      await until(() => es.events.some((e) => e.event === 'jobs:progress' && e.data.jobId === jobId), 60_000, 'the first progress');
      const c = await api<{ cancelled: boolean }>('builds.cancel', { jobId });
      expect(c.body).toEqual({ ok: true, value: { cancelled: true } });
      await until(() => finishedOf(es.events, jobId).length > 0, 60_000, 'jobs:finished');
      await new Promise((res) => setTimeout(res, 300));
      const finished = finishedOf(es.events, jobId);
      expect(finished).toHaveLength(1);
      expect(finished[0]!.status).toBe('cancelled');
      expect(existsSync(out)).toBe(false);
      expect(readdirSync(root).filter((f) => f.includes('big.beton'))).toEqual([]);
      // Cancelling again: the job is gone.
      expect((await api('builds.cancel', { jobId })).body).toEqual({ ok: true, value: { cancelled: false } });
    } finally {
      es.close();
    }
  });
});

describe('beton serve (CLI)', () => {
  it('prints a loopback URL with a token, answers with it, and exits on SIGTERM', async () => {
    const dir = join(base, 'cli-root');
    mkdirSync(dir);
    const child = spawn(process.execPath, [join(ROOT, 'bin/beton.js'), 'serve', dir, '--port', '0', '--db', join(base, 'cli.sqlite')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      await until(() => /open (http\S+)/.test(stdout) || child.exitCode !== null, 60_000, `the URL (stderr: ${stderr})`);
      const url = new URL(/open (http\S+)/.exec(stdout)![1]!);
      expect(url.hostname).toBe('127.0.0.1');
      expect(Number(url.port)).toBeGreaterThan(0);
      const token = url.searchParams.get('token')!;
      expect(token).toMatch(/^[0-9a-f]{48}$/);
      expect(stdout).toContain(dir);
      const ok = await fetch(`${url.origin}/api/env.info`, { method: 'POST', headers: { 'X-Beton-Token': token }, body: '{}' });
      expect(ok.status).toBe(200);
      expect(((await ok.json()) as Envelope<{ roots: string[] }>).ok).toBe(true);
      const denied = await fetch(`${url.origin}/api/env.info`, { method: 'POST', body: '{}' });
      expect(denied.status).toBe(401);
      child.kill('SIGTERM');
      const code = await Promise.race([exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 15_000))]);
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
