import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parentPort } from 'node:worker_threads';
import { gzipSync } from 'node:zlib';
import type { HostileCall } from './hostile-server.js';

/**
 * A misbehaving HTTP range server on loopback, in a thread of its own (a CLI child or the
 * Reader may block the test's thread). A request's path is /<anything>/<mode>/<name>: the
 * mode says how it misbehaves (hostile-server.ts lists them). Every request is logged.
 */
const files = new Map<string, Uint8Array>();
const log: string[] = [];
const open = new Set<ServerResponse>();
let swapped = 0;

const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  log.push(
    `${req.method} ${req.url} ${JSON.stringify({ range: req.headers.range, ifMatch: req.headers['if-match'], ae: req.headers['accept-encoding'] })}`,
  );
  open.add(res);
  res.on('close', () => open.delete(res));
  const parts = (req.url ?? '/').split('?')[0]!.split('/');
  const name = decodeURIComponent(parts.pop() ?? '');
  const mode = parts.pop() ?? 'ok';
  const port = (server.address() as AddressInfo).port;
  if (mode === 'redirect-out') return void res.writeHead(302, { location: `/secret/ok/${name}` }).end();
  if (mode === 'redirect-far') return void res.writeHead(302, { location: `http://127.0.0.2:${port}/ok/ok/${name}` }).end();
  if (mode === 'redirect-in') return void res.writeHead(307, { location: `/ok/ok/${name}` }).end();
  if (mode === 'redirect-loop') return void res.writeHead(302, { location: req.url ?? '/' }).end();
  if (mode === 'redirect-dots') return void res.writeHead(302, { location: `/ok/%2e%2e/secret/ok/${name}` }).end();
  let body = files.get(name);
  if (!body) return void res.writeHead(404).end();
  const m = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? '');
  const start = m ? Number(m[1]) : 0;
  const end = Math.min(m ? Number(m[2]) : body.byteLength - 1, body.byteLength - 1);
  const total = body.byteLength;
  const etag = `"${total}-${body[total >> 1] ?? 0}"`;
  if (mode === 'whole200') return void res.writeHead(200, { 'content-length': String(total), etag }).end(body);
  if (mode === 'endless200' || mode === 'endless206') {
    res.writeHead(mode === 'endless200' ? 200 : 206, mode === 'endless206' ? { 'content-range': `bytes ${start}-${end}/${total}` } : {});
    const chunk = new Uint8Array(1 << 16).fill(7);
    const pump = (): void => {
      while (!res.destroyed && res.write(chunk));
      if (!res.destroyed) res.once('drain', pump);
    };
    return pump();
  }
  const headers: Record<string, string> = {};
  if (mode === 'weak') {
    // A strict server: If-Match compares strongly, so a weak tag never matches (RFC 9110 §13.1.1).
    if (req.headers['if-match']) return void res.writeHead(412).end();
    headers.etag = `W/${etag}`;
  } else if (mode === 'swap-noetag') {
    // No ETag; after the open's first request, another object of the same size (and a later Last-Modified).
    if (swapped++ > 0) {
      body = body.map((b) => b ^ 0x5a);
      headers['last-modified'] = 'Sat, 28 Nov 2026 02:00:00 GMT';
    } else headers['last-modified'] = 'Sat, 28 Nov 2026 01:00:00 GMT';
  } else headers.etag = etag;
  if (req.headers['if-match'] && req.headers['if-match'] !== etag) return void res.writeHead(412).end();
  if (start > end) return void res.writeHead(416, { 'content-range': `bytes */${total}` }).end();
  let from = start;
  let part = body.subarray(start, end + 1);
  if (mode === 'early206' && start >= 100) {
    from = start - 100;
    part = body.subarray(from, end + 1);
  }
  if (mode === 'long206') part = Buffer.concat([part, new Uint8Array(1000).fill(1)]);
  headers['content-range'] = `bytes ${from}-${end}/${total}`;
  if (mode === 'gzip') {
    const z = gzipSync(part);
    return void res.writeHead(206, { ...headers, 'content-encoding': 'gzip', 'content-length': String(z.byteLength) }).end(z);
  }
  if (mode !== 'long206') headers['content-length'] = String(part.byteLength);
  res.writeHead(206, headers).end(part);
});

await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
parentPort!.on('message', async (c: HostileCall & { id: number }) => {
  let result: unknown = null;
  if (c.op === 'file') files.set(c.name, c.bytes);
  else if (c.op === 'log') result = log.splice(0);
  else if (c.op === 'reset') swapped = 0;
  else if (c.op === 'stop') {
    for (const r of open) r.destroy();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
  parentPort!.postMessage({ id: c.id, result });
});
parentPort!.postMessage({ id: 0, result: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
