// `beton serve`'s confinement (issue 12, item 4), over real HTTP to a server on 127.0.0.1:
// (a) side files and the output are never written through links that sit in the served
//     folder; (b) every file a request makes the server read (image-list rows, symlinked
//     class folders, video lists) stays inside the served folders, while the CLI keeps
//     reading what the user's own list says; (c) Host and Origin must name this server
//     (DNS rebinding, cross-site requests); (d) the token travels in the query string only
//     for the event stream; (e) training commands (--exec) and a custom ffmpeg need
//     --allow-exec; (f) not found is 404, and outside-existing looks like outside-missing.
import { spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { createServer as createNetServer } from 'node:net';
import { requires } from '../helpers/requires.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiEvent, Envelope, FinishedEvent } from '../../core/api/contract.js';
import type { BuildReport } from '../../core/api/build-report.js';
import { BetonService } from '../../core/services/beton-service.js';
import { allowedHostPorts, startHttpServer } from '../../core/services/http-server.js';
import { buildDataset } from '../../core/app/build.js';

/** Whether this machine has an IPv6 loopback to bind (containers may not). */
async function canListenOn(host: string): Promise<boolean> {
  const server = createNetServer();
  const ok = await new Promise<boolean>((r) => {
    server.once('error', () => r(false));
    server.listen(0, host, () => r(true));
  });
  if (ok) await new Promise((r) => server.close(r));
  return ok;
}
// Issue 33 item 11: without ::1 the IPv6 case is reported through requires(), not skipped in silence.
const HAVE_IPV6 = requires('an IPv6 loopback (::1)', 'enable IPv6 on lo (the ::1 binding case)', await canListenOn('::1'));

const ROOT = resolve(__dirname, '../..');
const SAMPLE = join(ROOT, 'assets/sample-images');
const base = mkdtempSync(join(tmpdir(), 'beton-confine-'));
const root = join(base, 'root'); // the folder the server may open
const outside = join(base, 'outside');
const staticDir = join(base, 'app');
let service: BetonService;
let server: Awaited<ReturnType<typeof startHttpServer>>;
let port: number;
const events: ApiEvent[] = [];

const img = (cls: string, i: number): string => join(SAMPLE, cls, readdirSync(join(SAMPLE, cls)).sort()[i]!);

beforeAll(async () => {
  for (const d of [root, outside, staticDir, join(outside, 'imgs', 'x')]) mkdirSync(d, { recursive: true });
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>Beton Studio</title>');
  // Inside: a class folder with two good images and one that does not decode.
  mkdirSync(join(root, 'withbad', 'a'), { recursive: true });
  copyFileSync(img('circles', 0), join(root, 'withbad', 'a', 'one.jpg'));
  copyFileSync(img('circles', 1), join(root, 'withbad', 'a', 'two.jpg'));
  writeFileSync(join(root, 'withbad', 'a', 'broken.jpg'), Buffer.from('this is not a JPEG at all'));
  mkdirSync(join(root, 'good'));
  copyFileSync(img('squares', 0), join(root, 'good', 'in.jpg'));
  // Outside: real images and files a build must neither read nor write.
  copyFileSync(img('stripes', 0), join(outside, 'secret.jpg'));
  copyFileSync(img('stripes', 1), join(outside, 'imgs', 'x', 'o1.jpg'));
  writeFileSync(join(outside, 'secret.txt'), 'not for the browser');
  writeFileSync(join(outside, 'fake.mp4'), 'not a video either');
  symlinkSync(outside, join(root, 'link-out'));
  service = new BetonService({ roots: [root], host: 'server', dbPath: join(base, 'runs.sqlite') });
  service.on((e) => events.push(e));
  server = await startHttpServer({ service, staticDir });
  port = Number(new URL(server.url).port);
});

afterAll(async () => {
  service?.close();
  await server?.close();
  rmSync(base, { recursive: true, force: true });
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw request, so Host, Origin and the path are sent exactly as given. */
function raw(o: { method?: string; path: string; headers?: Record<string, string>; body?: string }): Promise<Answer> {
  return new Promise((resolveReq, reject) => {
    const headers: Record<string, string> = {
      Host: `127.0.0.1:${port}`,
      ...(o.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      ...o.headers,
    };
    const req = httpRequest({ host: '127.0.0.1', port, path: o.path, method: o.method ?? 'GET', headers, setHost: false }, (res) => {
      // An event stream does not end: its status is the answer.
      if (res.headers['content-type']?.includes('text/event-stream')) {
        resolveReq({ status: res.statusCode ?? 0, headers: res.headers, body: '' });
        req.destroy();
        return;
      }
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolveReq({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', (e) => ((e as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(e)));
    req.end(o.body);
  });
}

/** POST /api/<method> with the token header (unless `headers` replaces it). */
async function api<T = unknown>(
  method: string,
  params: unknown = {},
  headers: Record<string, string> = { 'X-Beton-Token': server.token },
): Promise<{ status: number; body: Envelope<T> }> {
  const r = await raw({ method: 'POST', path: `/api/${method}`, headers, body: JSON.stringify(params) });
  return { status: r.status, body: JSON.parse(r.body) as Envelope<T> };
}

async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Starts a build over HTTP and resolves with its jobs:finished event. */
async function build(config: Record<string, unknown>): Promise<FinishedEvent> {
  // No encode threads: what is confined is what the source reads, on this thread either way,
  // and a thread's start-up per build was most of this file's time.
  const r = await api<{ jobId: string }>('builds.start', { config: { numWorkers: 0, ...config } });
  if (!r.body.ok) throw new Error(`builds.start: ${r.status} ${r.body.error.code} ${r.body.error.message}`);
  const { jobId } = r.body.value;
  const finished = (): FinishedEvent | undefined =>
    events.find((e): e is Extract<ApiEvent, { event: 'jobs:finished' }> => e.event === 'jobs:finished' && e.data.jobId === jobId)?.data;
  await until(() => finished() !== undefined, 60_000, `build ${jobId}`);
  return finished()!;
}

const isLink = (p: string): boolean => lstatSync(p).isSymbolicLink();

describe('(a) a build writes its side files and output inside the folder, never through links', () => {
  it('OUT.skipped.json that is a symlink (dangling or to a file outside) is replaced, not followed', async () => {
    writeFileSync(join(outside, 'victim.json'), 'original');
    const cases = [
      { out: join(root, 'dangling.beton'), target: join(outside, 'created-by-build.json') },
      { out: join(root, 'existing.beton'), target: join(outside, 'victim.json') },
    ];
    for (const c of cases) {
      symlinkSync(c.target, `${c.out}.skipped.json`);
      const done = await build({ source: { type: 'image_folder', path: join(root, 'withbad') }, output: c.out, onError: 'skip' });
      expect(done.status, done.message).toBe('ok');
      const report = done.result as BuildReport;
      expect(report.skipped).toHaveLength(1);
      expect(report.reportPath).toBe(`${c.out}.skipped.json`);
      // The report sits in the served folder as a plain file; nothing outside was touched.
      expect(isLink(`${c.out}.skipped.json`)).toBe(false);
      expect(JSON.parse(readFileSync(`${c.out}.skipped.json`, 'utf8'))).toMatchObject({ written: 2 });
    }
    expect(existsSync(join(outside, 'created-by-build.json'))).toBe(false);
    expect(readFileSync(join(outside, 'victim.json'), 'utf8')).toBe('original');
  });

  it('OUT.skipped.json that is a hard link to a file outside is replaced, not truncated', async () => {
    writeFileSync(join(outside, 'hard-victim.txt'), 'original');
    const out = join(root, 'hard.beton');
    linkSync(join(outside, 'hard-victim.txt'), `${out}.skipped.json`);
    const done = await build({ source: { type: 'image_folder', path: join(root, 'withbad') }, output: out, onError: 'skip' });
    expect(done.status, done.message).toBe('ok');
    expect(readFileSync(join(outside, 'hard-victim.txt'), 'utf8')).toBe('original');
    expect(JSON.parse(readFileSync(`${out}.skipped.json`, 'utf8'))).toMatchObject({ written: 2 });
  });

  it('an output that is a dangling symlink out of the folder is refused (it leads outside), and nothing is written there', async () => {
    const out = join(root, 'linked.beton');
    symlinkSync(join(outside, 'target.beton'), out);
    const r = await api('builds.start', {
      config: { source: { type: 'image_folder', path: join(root, 'withbad') }, output: out, onError: 'skip' },
    });
    expect(r.status).toBe(403);
    expect(r.body.ok === false && r.body.error.code).toBe('FORBIDDEN');
    expect(existsSync(join(outside, 'target.beton'))).toBe(false);
    expect(readdirSync(outside).filter((f) => f.endsWith('.beton') || f.includes('.tmp-'))).toEqual([]);
  });

  it('the writer replaces a link planted at the output name after the check instead of writing through it', async () => {
    // The service resolved the name before the link appeared (a race with someone else
    // writing to the folder): the rename puts the file in place of the link.
    const out = join(root, 'raced.beton');
    symlinkSync(join(outside, 'raced-target.beton'), out);
    const report = await buildDataset({
      source: { type: 'image_folder', path: join(root, 'withbad') },
      output: out,
      pageSize: 1 << 22,
      chunkSize: 100,
      seed: 0,
      onError: 'skip',
      numWorkers: 0,
    });
    expect(report.numSamples).toBe(2);
    expect(isLink(out)).toBe(false);
    expect(existsSync(join(outside, 'raced-target.beton'))).toBe(false);
  });
});

describe('(b) every file a request makes the server read is inside the served folders', () => {
  beforeAll(() => {
    // An image list whose rows escape: ../, absolute, and through a symlink in the folder.
    writeFileSync(
      join(root, 'escape.csv'),
      ['image,label', 'good/in.jpg,0', '../outside/secret.jpg,1', `${join(outside, 'secret.jpg')},1`, 'link-out/secret.jpg,1'].join('\n') +
        '\n',
    );
    writeFileSync(
      join(root, 'escape.jsonl'),
      [
        { image: 'good/in.jpg', label: 0 },
        { image: { path: '../outside/secret.jpg' }, label: 1 },
      ]
        .map((r) => JSON.stringify(r))
        .join('\n') + '\n',
    );
    // An ImageFolder whose class folder is a symlink out of the served folder, and one
    // whose class folder holds a symlinked image from outside.
    mkdirSync(join(root, 'linked-classes', 'in'), { recursive: true });
    copyFileSync(img('squares', 1), join(root, 'linked-classes', 'in', 'ok.jpg'));
    symlinkSync(join(outside, 'imgs', 'x'), join(root, 'linked-classes', 'out'));
    mkdirSync(join(root, 'linked-files', 'a'), { recursive: true });
    copyFileSync(img('squares', 2), join(root, 'linked-files', 'a', 'ok.jpg'));
    symlinkSync(join(outside, 'secret.jpg'), join(root, 'linked-files', 'a', 'link.jpg'));
  });

  it('image-list rows pointing outside (../, absolute, symlink) are refused; only the inside row is built and previewed', async () => {
    const out = join(root, 'escape.beton');
    const done = await build({
      source: { type: 'image_list', path: join(root, 'escape.csv'), imageColumn: 'image' },
      output: out,
      onError: 'skip',
    });
    expect(done.status, done.message).toBe('ok');
    const report = done.result as BuildReport;
    expect(report.numSamples).toBe(1);
    expect(report.skipped).toHaveLength(3);
    for (const s of report.skipped) expect(s.reason).toMatch(/outside the folders this server may open/);
    const preview = await api<{ numSamples: number; samples: unknown[] }>('datasets.preview', { path: out, count: 8 });
    expect(preview.body.ok && preview.body.value.numSamples).toBe(1);
    expect(preview.body.ok && preview.body.value.samples).toHaveLength(1);
  });

  it('with onError fail, the first escaping row fails the build and writes nothing', async () => {
    const out = join(root, 'escape-fail.beton');
    const done = await build({ source: { type: 'image_list', path: join(root, 'escape.jsonl'), imageColumn: 'image' }, output: out });
    expect(done.status).toBe('failed');
    expect(done.message).toMatch(/outside the folders this server may open/);
    expect(existsSync(out)).toBe(false);
  });

  it('a class folder symlinked out of the served folder is not listed: detect and build refuse it by name', async () => {
    const detect = await api('sources.detect', { path: join(root, 'linked-classes') });
    expect(detect.status).toBe(403);
    expect(detect.body.ok === false && detect.body.error.message).toContain(join(root, 'linked-classes', 'out'));
    const done = await build({
      source: { type: 'image_folder', path: join(root, 'linked-classes') },
      output: join(root, 'linked-classes.beton'),
      onError: 'skip',
    });
    expect(done.status).toBe('failed');
    expect(done.message).toMatch(/linked-classes\/out is outside the folders this server may open/);
    expect(existsSync(join(root, 'linked-classes.beton'))).toBe(false);
  });

  it('an image symlinked in from outside is refused like an escaping row', async () => {
    const done = await build({
      source: { type: 'image_folder', path: join(root, 'linked-files') },
      output: join(root, 'linked-files.beton'),
      onError: 'skip',
    });
    expect(done.status, done.message).toBe('ok');
    const report = done.result as BuildReport;
    expect(report.numSamples).toBe(1);
    expect(report.skipped.map((s) => s.reason)).toEqual([expect.stringMatching(/link\.jpg is outside the folders this server may open/)]);
  });

  it('a video list row pointing outside is refused before ffmpeg opens it', async () => {
    writeFileSync(join(root, 'videos.csv'), `path,label\n../outside/fake.mp4,0\n${join(outside, 'fake.mp4')},1\n`);
    const done = await build({
      source: { type: 'video_list', path: join(root, 'videos.csv'), clipLength: 2 },
      output: join(root, 'videos.beton'),
      onError: 'skip',
    });
    const report = done.result as BuildReport | undefined;
    const reasons = report ? report.skipped.map((s) => s.reason).join('\n') : (done.message ?? '');
    expect(reasons).toMatch(/outside the folders this server may open/);
    expect(reasons).not.toMatch(/cannot read video/);
  });

  it('sources.detect on a folder whose class folder links outside: the same answer whatever is out there', async () => {
    mkdirSync(join(outside, 'vids', 'x'), { recursive: true });
    writeFileSync(join(outside, 'vids', 'x', 'a.mp4'), 'fake');
    for (const [name, target] of [
      ['vid-linked', join(outside, 'vids', 'x')],
      ['img-linked', join(outside, 'imgs', 'x')],
      ['none-linked', join(outside, 'no-such-dir')],
    ] as const) {
      mkdirSync(join(root, name));
      symlinkSync(target, join(root, name, 'cls'));
    }
    const names = ['vid-linked', 'img-linked', 'none-linked'];
    const answers = await Promise.all(names.map((n) => api('sources.detect', { path: join(root, n) })));
    const shape = (i: number): unknown => {
      const a = answers[i]!;
      return {
        status: a.status,
        body: a.body.ok ? a.body : { ...a.body, error: { ...a.body.error, message: a.body.error.message.replace(names[i]!, '<folder>') } },
      };
    };
    expect(shape(0)).toMatchObject({ status: 403, body: { ok: false, error: { code: 'FORBIDDEN' } } });
    expect(shape(1)).toEqual(shape(0));
    expect(shape(2)).toEqual(shape(0));
    // A build is refused the same way, by the link's name.
    const done = await build({
      source: { type: 'image_folder', path: join(root, 'none-linked') },
      output: join(root, 'none-linked.beton'),
      onError: 'skip',
    });
    expect(done.status).toBe('failed');
    expect(done.message).toMatch(/none-linked\/cls is outside the folders this server may open/);
  });

  it('sources.detect answers the same whether an escaping row names an existing file or not', async () => {
    writeFileSync(join(root, 'probe-existing.csv'), 'image,label\n../outside/secret.jpg,0\n');
    writeFileSync(join(root, 'probe-missing.csv'), 'image,label\n../outside/no-such.jpg,0\n');
    const a = await api<{ source: { type: string }; fields: unknown[] }>('sources.detect', { path: join(root, 'probe-existing.csv') });
    const b = await api<{ source: { type: string }; fields: unknown[] }>('sources.detect', { path: join(root, 'probe-missing.csv') });
    expect(a.status).toBe(b.status);
    if (!a.body.ok || !b.body.ok) throw new Error(JSON.stringify([a.body, b.body]));
    expect(a.body.value.source.type).toBe(b.body.value.source.type);
    expect(a.body.value.fields).toEqual(b.body.value.fields);
  });

  it('the CLI path (buildDataset without a server) still reads what the user’s own list says', async () => {
    const out = join(base, 'cli-escape.beton');
    const report = await buildDataset({
      source: { type: 'image_list', path: join(root, 'escape.csv'), imageColumn: 'image' },
      output: out,
      pageSize: 1 << 22,
      chunkSize: 100,
      seed: 0,
      onError: 'fail',
      numWorkers: 0,
    });
    expect(report.numSamples).toBe(4);
  });
});

describe('(c) Host and Origin must name this server', () => {
  it('a foreign Host header is refused for the API and the page (DNS rebinding)', async () => {
    for (const host of [
      'evil.example',
      `evil.example:${port}`,
      `127.0.0.1:${port + 1}`,
      `localhost.evil.example:${port}`,
      `127.0.0.1.nip.io:${port}`,
    ]) {
      const a = await api('env.info', {}, { 'X-Beton-Token': server.token, Host: host });
      expect(a.status, host).toBe(403);
      expect(a.body.ok === false && a.body.error.code, host).toBe('HOST_NOT_ALLOWED');
      const page = await raw({ path: '/', headers: { Host: host } });
      expect(page.status, host).toBe(403);
      expect(page.body).not.toContain('Beton Studio');
      const stream = await raw({ path: `/api/events?token=${server.token}`, headers: { Host: host } });
      expect(stream.status, host).toBe(403);
    }
  });

  it('the loopback names of the bound host and port are accepted', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`]) {
      expect((await api('env.info', {}, { 'X-Beton-Token': server.token, Host: host })).status, host).toBe(200);
      expect((await raw({ path: '/', headers: { Host: host } })).status, host).toBe(200);
    }
  });

  it('a POST with a foreign Origin is refused; this server’s origin is accepted', async () => {
    for (const origin of [
      'http://evil.example',
      `http://evil.example:${port}`,
      'null',
      `https://127.0.0.1:${port}`,
      `http://127.0.0.1:${port + 1}`,
    ]) {
      const r = await api('env.info', {}, { 'X-Beton-Token': server.token, Origin: origin });
      expect(r.status, origin).toBe(403);
      expect(r.body.ok === false && r.body.error.code, origin).toBe('ORIGIN_NOT_ALLOWED');
    }
    for (const origin of [`http://127.0.0.1:${port}`, `http://localhost:${port}`]) {
      expect((await api('env.info', {}, { 'X-Beton-Token': server.token, Origin: origin })).status, origin).toBe(200);
    }
    // A state-changing call from a foreign page does not start anything.
    const before = events.length;
    const r = await api(
      'builds.start',
      { config: { source: { type: 'image_folder', path: join(root, 'withbad') }, output: join(root, 'csrf.beton') } },
      { 'X-Beton-Token': server.token, Origin: 'http://evil.example' },
    );
    expect(r.status).toBe(403);
    await new Promise((res) => setTimeout(res, 200));
    expect(events.slice(before).filter((e) => e.event === 'jobs:finished')).toEqual([]);
  });

  it('a POST without Origin (curl, scripts: not a browser) is served on the token alone', async () => {
    expect((await api('env.info', {})).status).toBe(200);
  });

  it('the event stream refuses a foreign Origin too', async () => {
    const r = await raw({ path: `/api/events?token=${server.token}`, headers: { Origin: 'http://evil.example' } });
    expect(r.status).toBe(403);
  });

  it('--allow-host adds names (a tunnel on another port, a bind beyond loopback)', async () => {
    const extra = await startHttpServer({ service, staticDir, allowedHosts: ['gpu-box', '127.0.0.1:8080'] });
    try {
      const p = Number(new URL(extra.url).port);
      const ask = (headers: Record<string, string>): Promise<number> =>
        new Promise((res, rej) => {
          const req = httpRequest(
            {
              host: '127.0.0.1',
              port: p,
              path: '/api/env.info',
              method: 'POST',
              headers: { 'X-Beton-Token': extra.token, ...headers },
              setHost: false,
            },
            (r) => {
              r.resume();
              res(r.statusCode ?? 0);
            },
          );
          req.on('error', rej);
          req.end('{}');
        });
      expect(await ask({ Host: `gpu-box:${p}` })).toBe(200);
      expect(await ask({ Host: `gpu-box:${p}`, Origin: `http://gpu-box:${p}` })).toBe(200);
      expect(await ask({ Host: '127.0.0.1:8080', Origin: 'http://127.0.0.1:8080' })).toBe(200);
      expect(await ask({ Host: `127.0.0.1:${p}` })).toBe(200);
      expect(await ask({ Host: 'gpu-box:8080' })).toBe(403);
    } finally {
      await extra.close();
    }
    // A wildcard bind answers to the loopback names (and prints a 127.0.0.1 URL), never to 0.0.0.0.
    expect([...allowedHostPorts('0.0.0.0', 5780)].sort()).toEqual(['127.0.0.1:5780', '[::1]:5780', 'localhost:5780']);
    expect([...allowedHostPorts('10.1.2.3', 5780)]).toContain('10.1.2.3:5780');
    expect([...allowedHostPorts('127.0.0.1', 5780)].sort()).toEqual(['127.0.0.1:5780', 'localhost:5780']);
  });

  it.runIf(HAVE_IPV6)('bound to ::1, [::1]:PORT and localhost:PORT are accepted and 127.0.0.1 is not', async () => {
    const v6 = await startHttpServer({ service, staticDir, host: '::1' });
    try {
      const p6 = Number(new URL(v6.url).port);
      const ask = (host: string): Promise<number> =>
        new Promise((res, rej) => {
          const req = httpRequest(
            {
              host: '::1',
              family: 6,
              port: p6,
              path: '/api/env.info',
              method: 'POST',
              headers: { Host: host, 'X-Beton-Token': v6.token },
              setHost: false,
            },
            (r) => {
              r.resume();
              res(r.statusCode ?? 0);
            },
          );
          req.on('error', rej);
          req.end('{}');
        });
      expect(await ask(`[::1]:${p6}`)).toBe(200);
      expect(await ask(`localhost:${p6}`)).toBe(200);
      expect(await ask(`127.0.0.1:${p6}`)).toBe(403);
      expect(await ask(`evil.example:${p6}`)).toBe(403);
    } finally {
      await v6.close();
    }
  });
});

describe('(d) the token in the query string is for the event stream only', () => {
  it('POST /api/<method>?token= is 401; the header works; GET /api/events?token= streams', async () => {
    for (const m of ['env.info', 'fs.browse', 'builds.start', 'runs.list']) {
      const r = await api(`${m}?token=${server.token}`, {}, {});
      expect(r.status, m).toBe(401);
      expect(r.body.ok === false && r.body.error.message).toMatch(/X-Beton-Token/);
    }
    expect((await api('env.info')).status).toBe(200);
    const stream = await raw({ path: `/api/events?token=${server.token}` });
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toContain('text/event-stream');
  });
});

describe('(e) training commands need --allow-exec', () => {
  it('off by default: profiles.start with exec is refused (EXEC_DISABLED, how to enable) and env.info says so', async () => {
    const before = events.length;
    const r = await api('profiles.start', { exec: { command: `touch ${join(outside, 'pwned')}` } });
    expect(r.status).toBe(403);
    expect(r.body.ok === false && r.body.error.code).toBe('EXEC_DISABLED');
    expect(r.body.ok === false && r.body.error.message).toContain('--allow-exec');
    await new Promise((res) => setTimeout(res, 300));
    expect(existsSync(join(outside, 'pwned'))).toBe(false);
    expect(events.slice(before).filter((e) => e.event === 'jobs:finished')).toEqual([]);
    const info = await api<{ allowExec: boolean }>('env.info');
    expect(info.body.ok && info.body.value.allowExec).toBe(false);
  });

  it('a build config naming its own ffmpeg executable is refused the same way', async () => {
    writeFileSync(join(root, 'v.csv'), 'path,label\nv.mp4,0\n');
    const r = await api('builds.start', {
      config: {
        source: { type: 'video_list', path: join(root, 'v.csv'), clipLength: 2, ffmpeg: '/bin/sh' },
        output: join(root, 'v.beton'),
      },
    });
    expect(r.status).toBe(403);
    expect(r.body.ok === false && r.body.error.code).toBe('EXEC_DISABLED');
  });

  it('allowed when the service is started with allowExec (beton serve --allow-exec)', async () => {
    const svc = new BetonService({
      roots: [root],
      host: 'server',
      dbPath: join(base, 'exec.sqlite'),
      allowExec: true,
    } as ConstructorParameters<typeof BetonService>[0]);
    try {
      const info = await svc.call('env.info', {});
      expect(info.ok && (info.value as { allowExec: boolean }).allowExec).toBe(true);
      const r = await svc.call('profiles.start', { exec: { command: 'echo hi' } });
      expect(r.ok, JSON.stringify(r)).toBe(true);
    } finally {
      svc.close();
    }
  });

  it('the CLI: --allow-exec turns it on, and it is off without the flag', async () => {
    // Both servers at once: each waits mostly on its own Node start.
    const serveOnce = async (allow: boolean): Promise<void> => {
      const dir = mkdtempSync(join(base, 'cli-'));
      const args = [
        join(ROOT, 'bin/beton.js'),
        'serve',
        dir,
        '--port',
        '0',
        '--db',
        join(dir, 'runs.sqlite'),
        ...(allow ? ['--allow-exec'] : []),
      ];
      const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      try {
        await until(() => /open (http\S+)/.test(stdout) || child.exitCode !== null, 60_000, 'the URL');
        const m = /open (http\S+)/.exec(stdout);
        expect(m, stderr).not.toBeNull();
        const url = new URL(m![1]!);
        const res = await fetch(`${url.origin}/api/env.info`, {
          method: 'POST',
          headers: { 'X-Beton-Token': url.searchParams.get('token')! },
          body: '{}',
        });
        const env = (await res.json()) as Envelope<{ allowExec: boolean }>;
        expect(env.ok && env.value.allowExec, `--allow-exec ${allow}`).toBe(allow);
        if (allow) expect(stderr).toMatch(/allow-exec/);
      } finally {
        const exited = new Promise((r) => child.once('exit', r));
        if (child.exitCode === null) child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
    };
    await Promise.all([serveOnce(false), serveOnce(true)]);
  });
});

describe('(f) not found is 404, and outside the folder nothing is revealed', () => {
  it('a missing file inside the folder and an unknown run are 404 NOT_FOUND; an unknown method 404', async () => {
    for (const [m, p] of [
      ['datasets.inspect', { path: join(root, 'no-such.beton') }],
      ['datasets.preview', { path: join(root, 'no-such.beton') }],
      ['fs.browse', { path: join(root, 'no-such-dir') }],
      ['sources.detect', { path: join(root, 'no-such.csv') }],
      ['runs.get', { id: 987654 }],
    ] as const) {
      const r = await api(m, p);
      expect(r.status, `${m} ${JSON.stringify(p)}`).toBe(404);
      expect(r.body.ok === false && r.body.error.code).toBe('NOT_FOUND');
    }
    const unknown = await api('no.such.method');
    expect(unknown.status).toBe(404);
    expect(unknown.body.ok === false && unknown.body.error.code).toBe('UNKNOWN_METHOD');
  });

  it('outside-existing and outside-missing get the same answer (403 FORBIDDEN, same message shape)', async () => {
    const pairs: Array<[string, (p: string) => unknown, string, string]> = [
      ['datasets.inspect', (p) => ({ path: p }), join(outside, 'secret.txt'), join(outside, 'no-such.txt')],
      ['datasets.inspect', (p) => ({ path: p }), join(root, 'link-out', 'secret.txt'), join(root, 'link-out', 'no-such.txt')],
      [
        'datasets.inspect',
        (p) => ({ path: p }),
        join(root, '..', 'outside', 'secret.txt'),
        join(root, '..', 'outside', 'no-such', 'deeper.txt'),
      ],
      ['fs.browse', (p) => ({ path: p }), join(outside, 'imgs'), join(outside, 'no-such-dir')],
      ['sources.detect', (p) => ({ path: p }), join(outside, 'secret.jpg'), join(outside, 'no-such.jpg')],
      [
        'builds.start',
        (p) => ({ config: { source: { type: 'image_folder', path: join(root, 'withbad') }, output: p } }),
        join(outside, 'x.beton'),
        join(outside, 'no-such-dir', 'x.beton'),
      ],
      [
        'builds.start',
        (p) => ({ config: { source: { type: 'image_folder', path: join(root, 'withbad') }, output: p } }),
        join(root, 'link-out', 'x.beton'),
        join(root, 'link-out', 'no-such-dir', 'x.beton'),
      ],
      ['profiles.start', (p) => ({ plan: { file: p } }), join(outside, 'secret.txt'), join(outside, 'no-such.beton')],
      // The torch engine's source folder is confined like the file (issue 18).
      [
        'profiles.start',
        (p) => ({ plan: { file: join(root, 'withbad', 'a', 'broken.jpg'), engines: ['torch'], source: p } }),
        join(outside, 'imgs'),
        join(outside, 'no-such-dir'),
      ],
    ];
    for (const [m, params, existing, missing] of pairs) {
      const a = await api(m, params(existing));
      const b = await api(m, params(missing));
      expect([a.status, b.status], `${m} ${existing} / ${missing}`).toEqual([403, 403]);
      const strip = (r: typeof a, p: string): unknown =>
        r.body.ok ? r.body : { ...r.body, error: { ...r.body.error, message: r.body.error.message.replace(p, '<path>') } };
      expect(strip(a, existing)).toEqual(strip(b, missing));
    }
    expect(existsSync(join(outside, 'x.beton'))).toBe(false);
  });

  it('relative paths name the first served folder, and a missing relative one is 404', async () => {
    const r = await api('datasets.inspect', { path: relative(root, join(root, 'nope.beton')) });
    expect(r.status).toBe(404);
  });
});
