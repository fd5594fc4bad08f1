import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import type { FaultRule, ServerCall } from './remote-servers.js';

/**
 * The remote tests' servers, in a thread of their own: the Reader's synchronous reads
 * block the test's thread (Atomics.wait), which must not be the one answering them.
 * s3rver (S3 API), a fault proxy in front of it, and an HTTP range server.
 */
const { buckets } = workerData as { buckets: string[] };
const files = new Map<string, Uint8Array>();
let rule: FaultRule = { fault: 'ok', minStart: 0, times: 0 };
let requests = 0;
/** The ranges the HTTP range server sent (start, end inclusive), in order: what a test's client fetched. */
const served: Array<[number, number]> = [];
const stalled = new Set<ServerResponse>();

/** The fault for a request of bytes from `start` (consumes one of the rule's times). */
function faultFor(start: number): FaultRule['fault'] {
  if (rule.fault === 'ok' || start < rule.minStart || rule.times === 0) return 'ok';
  if (rule.times > 0) rule.times--;
  return rule.fault;
}

function listen(s: Server): Promise<number> {
  return new Promise((r) => s.listen(0, '127.0.0.1', () => r((s.address() as AddressInfo).port)));
}

const rangeServer = createServer((req: IncomingMessage, res: ServerResponse) => {
  requests++;
  const body = files.get(decodeURIComponent((req.url ?? '/').slice(1)));
  if (!body) return void res.writeHead(404).end();
  const etag = `"${body.byteLength}-${body[body.byteLength >> 1] ?? 0}-${body[body.byteLength - 1] ?? 0}"`;
  if (req.headers['if-match'] && req.headers['if-match'] !== etag) return void res.writeHead(412).end();
  const m = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? '');
  const start = m ? Number(m[1]) : 0;
  const end = Math.min(m ? Number(m[2]) : body.byteLength - 1, body.byteLength - 1);
  const fault = faultFor(start);
  if (fault === 'status500') return void res.writeHead(500).end();
  if (fault === 'status403') return void res.writeHead(403).end();
  if (fault === 'stall') return void stalled.add(res);
  if (fault === 'reset') return void req.socket.destroy();
  if (start > end) return void res.writeHead(416, { 'content-range': `bytes */${body.byteLength}` }).end();
  if (fault === 'shifted' && end + 1 < body.byteLength) {
    // A well-formed answer for the range one byte later: Content-Range and Content-Length agree
    // with it, and its length is the one asked for; only the start tells it is not the range asked.
    served.push([start + 1, end + 1]);
    res.writeHead(206, {
      'content-range': `bytes ${start + 1}-${end + 1}/${body.byteLength}`,
      'content-length': String(end - start + 1),
      etag,
    });
    return void res.end(body.subarray(start + 1, end + 2));
  }
  const part = body.subarray(start, end + 1);
  served.push([start, end]);
  res.writeHead(206, { 'content-range': `bytes ${start}-${end}/${body.byteLength}`, 'content-length': String(part.byteLength), etag });
  if (fault === 'truncate') {
    res.write(part.subarray(0, part.byteLength >> 1));
    return void setTimeout(() => req.socket.destroy(), 20);
  }
  res.end(part);
});

/** Where s3rver's filesystem store keeps bucket's multipart uploads (one folder per upload id). */
const uploadsDir = (bucket: string): string => join(directory, bucket, '._S3rver_uploads');

/** The multipart uploads s3rver holds for `bucket`, with their keys. */
function uploadsOf(bucket: string): Array<{ id: string; key: string }> {
  const d = uploadsDir(bucket);
  if (!existsSync(d)) return [];
  return readdirSync(d).map((id) => {
    let key = '';
    try {
      key = readFileSync(join(d, id, 'key'), 'utf8');
    } catch {
      // a part arrived for an upload without its record: still an upload left behind
    }
    return { id, key };
  });
}

/**
 * s3rver 3.7 answers neither AbortMultipartUpload (DELETE ?uploadId) nor
 * ListMultipartUploads (GET ?uploads) ("NotImplemented"/405): the proxy does both, on
 * s3rver's own store, so uploads through the proxy can be aborted and listed as on S3.
 */
function multipartCall(req: IncomingMessage, res: ServerResponse): boolean {
  const u = new URL(req.url ?? '/', 'http://x');
  const bucket = decodeURIComponent(u.pathname.split('/')[1] ?? '');
  if (req.method === 'DELETE' && u.searchParams.has('uploadId')) {
    const id = u.searchParams.get('uploadId') ?? '';
    const d = join(uploadsDir(bucket), id);
    if (!/^[0-9a-f]+$/.test(id) || !existsSync(d)) {
      res.writeHead(404, { 'content-type': 'application/xml' });
      res.end('<?xml version="1.0"?><Error><Code>NoSuchUpload</Code><Message>The specified upload does not exist.</Message></Error>');
      return true;
    }
    rmSync(d, { recursive: true, force: true });
    res.writeHead(204).end();
    return true;
  }
  if (req.method === 'GET' && u.searchParams.has('uploads') && u.pathname.split('/').filter(Boolean).length === 1) {
    const prefix = u.searchParams.get('prefix') ?? '';
    const items = uploadsOf(bucket)
      .filter((x) => x.key.startsWith(prefix))
      .map((x) => `<Upload><Key>${x.key.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</Key><UploadId>${x.id}</UploadId></Upload>`)
      .join('');
    res.writeHead(200, { 'content-type': 'application/xml' });
    res.end(
      `<?xml version="1.0" encoding="UTF-8"?><ListMultipartUploadsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Bucket>${bucket}</Bucket><IsTruncated>false</IsTruncated>${items}</ListMultipartUploadsResult>`,
    );
    return true;
  }
  return false;
}

/** A proxy in front of s3rver that applies the same fault rule to ranged GETs (and answers multipartCall's requests). */
function s3Proxy(target: number): Server {
  return createServer((req, res) => {
    requests++;
    if (multipartCall(req, res)) return;
    const m = /bytes=(\d+)-/.exec(req.headers.range ?? '');
    const fault = req.method === 'GET' && m ? faultFor(Number(m[1])) : 'ok';
    if (fault === 'status500') return void res.writeHead(500).end();
    if (fault === 'status403')
      return void res
        .writeHead(403, { 'content-type': 'application/xml' })
        .end('<?xml version="1.0"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>');
    if (fault === 'stall') return void stalled.add(res);
    if (fault === 'reset') return void req.socket.destroy();
    const up = request({ host: '127.0.0.1', port: target, method: req.method, path: req.url, headers: req.headers }, (r) => {
      if (fault === 'long206' || fault === 'early206' || fault === 'endless206') {
        // Wrong bytes for the range: more than asked, a Content-Range starting early, no end.
        const headers = { ...r.headers };
        delete headers['content-length'];
        const cr = /bytes (\d+)-(\d+)\/(\d+)/.exec(String(headers['content-range']));
        if (fault === 'early206' && cr) headers['content-range'] = `bytes ${Math.max(0, Number(cr[1]) - 100)}-${cr[2]}/${cr[3]}`;
        res.writeHead(r.statusCode ?? 502, headers);
        r.on('data', (c: Buffer) => res.write(c));
        r.on('end', () => {
          if (fault !== 'endless206') return void res.end(new Uint8Array(1000));
          const pump = (): void => {
            while (!res.destroyed && res.write(new Uint8Array(1 << 16)));
            if (!res.destroyed) res.once('drain', pump);
          };
          stalled.add(res);
          pump();
        });
        return;
      }
      res.writeHead(r.statusCode ?? 502, r.headers);
      if (fault === 'truncate') {
        let sent = false;
        r.on('data', (c: Buffer) => {
          if (!sent) res.write(c.subarray(0, c.byteLength >> 1));
          sent = true;
          setTimeout(() => req.socket.destroy(), 20);
        });
      } else r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
}

const directory = mkdtempSync(join(tmpdir(), 's3rver-'));
const { default: S3rver } = await import('s3rver');
const s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory, configureBuckets: buckets.map((name) => ({ name })) });
const { port: s3Port } = await s3.run();
const proxy = s3Proxy(s3Port);
const proxyPort = await listen(proxy);
const httpPort = await listen(rangeServer);

parentPort!.on('message', async (c: ServerCall & { id: number }) => {
  let result: unknown = null;
  if (c.op === 'file') files.set(c.name, c.bytes);
  else if (c.op === 'fault') rule = { ...c.rule };
  else if (c.op === 'requests') result = requests;
  else if (c.op === 'served') result = [...served];
  else if (c.op === 'stop') {
    for (const r of stalled) r.destroy();
    for (const s of [rangeServer, proxy]) {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
    await s3.close();
    rmSync(directory, { recursive: true, force: true });
  }
  parentPort!.postMessage({ id: c.id, result });
});
parentPort!.postMessage({
  id: 0,
  result: { s3: `http://127.0.0.1:${s3Port}`, proxy: `http://127.0.0.1:${proxyPort}`, http: `http://127.0.0.1:${httpPort}` },
});
