import { randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';
import type { ApiEvent } from '../api/contract.js';
import type { BetonService } from './beton-service.js';

export interface HttpServerOptions {
  service: BetonService;
  host?: string;
  port?: number;
  /** The built renderer (index.html + assets). */
  staticDir: string;
  token?: string;
}

/** The CSP of the app's page: own scripts and styles only, data: images (thumbnails), no framing. */
export const CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'";

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};
const MAX_BODY = 1 << 20;

/**
 * `beton serve`: the app's contract over HTTP (POST /api/<method>) and server-sent events
 * (GET /api/events), plus the built renderer. Every /api/ request must carry the token
 * (Authorization: Bearer, X-Beton-Token, or ?token= for EventSource), checked before any
 * routing; binds to loopback unless told otherwise.
 */
export async function startHttpServer(o: HttpServerOptions): Promise<{ server: Server; url: string; token: string; close: () => Promise<void> }> {
  const token = o.token ?? randomBytes(24).toString('hex');
  const tokenBuf = Buffer.from(token);
  const authorized = (req: IncomingMessage, url: URL): boolean => {
    const auth = req.headers.authorization;
    const given = (auth?.startsWith('Bearer ') ? auth.slice(7) : undefined) ?? (req.headers['x-beton-token'] as string | undefined) ?? url.searchParams.get('token') ?? '';
    const b = Buffer.from(given);
    return b.length === tokenBuf.length && timingSafeEqual(b, tokenBuf);
  };
  const streams = new Set<ServerResponse>();
  const unsubscribe = o.service.on((e: ApiEvent) => {
    const line = `event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`;
    for (const s of streams) s.write(line);
  });
  const staticRoot = resolve(o.staticDir);

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    if (url.pathname.startsWith('/api/')) {
      if (!authorized(req, url)) return send(res, 401, { ok: false, error: { code: 'UNAUTHORIZED', message: 'missing or wrong token; open the URL beton serve printed' } });
      if (url.pathname === '/api/events' && req.method === 'GET') {
        res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', Connection: 'keep-alive' });
        res.write(': connected\n\n');
        streams.add(res);
        const ping = setInterval(() => res.write(': ping\n\n'), 15000);
        req.on('close', () => {
          clearInterval(ping);
          streams.delete(res);
        });
        return;
      }
      if (req.method !== 'POST') return send(res, 405, { ok: false, error: { code: 'METHOD_NOT_ALLOWED', message: 'use POST' } });
      const method = url.pathname.slice('/api/'.length);
      readBody(req)
        .then(async (body) => {
          let params: unknown;
          try {
            params = body.length ? JSON.parse(body) : {};
          } catch {
            return send(res, 400, { ok: false, error: { code: 'BAD_REQUEST', message: 'the body is not JSON' } });
          }
          const env = await o.service.call(method, params);
          send(res, env.ok ? 200 : env.error.code === 'UNKNOWN_METHOD' ? 404 : env.error.code === 'FORBIDDEN' ? 403 : 400, env);
        })
        .catch((e: Error) => {
          // Answer, then close the connection (the rest of the body is not read).
          res.setHeader('Connection', 'close');
          send(res, 413, { ok: false, error: { code: 'TOO_LARGE', message: e.message } });
        });
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, { ok: false, error: { code: 'METHOD_NOT_ALLOWED', message: 'GET only' } });
    serveStatic(staticRoot, url.pathname, res);
  });
  await new Promise<void>((r, j) => {
    server.once('error', j);
    server.listen(o.port ?? 0, o.host ?? '127.0.0.1', () => r());
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : o.port;
  const host = o.host ?? '127.0.0.1';
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}/?token=${token}`;
  return {
    server,
    url,
    token,
    close: async () => {
      unsubscribe();
      for (const s of streams) s.end();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolveBody, reject) => {
    let size = 0;
    let over = Number(req.headers['content-length']) > MAX_BODY;
    if (over) reject(new Error('request body over 1 MiB'));
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => {
      if (over) return;
      size += c.length;
      if (size > MAX_BODY) {
        // Not req.destroy(): that would drop the 413 answer with the socket.
        over = true;
        chunks.length = 0;
        reject(new Error('request body over 1 MiB'));
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolveBody(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function serveStatic(root: string, pathname: string, res: ServerResponse): void {
  let rel: string;
  try {
    rel = normalize(decodeURIComponent(pathname)).replace(/^([/\\])+/, '');
  } catch {
    res.writeHead(400).end();
    return;
  }
  let file = join(root, rel);
  if (!file.startsWith(root + sep) && file !== root) {
    res.writeHead(403).end();
    return;
  }
  // Unknown paths get the app (client-side routes); real files are served as they are.
  if (!existsSync(file) || statSync(file).isDirectory()) file = join(root, 'index.html');
  if (!existsSync(file)) {
    res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8' }).end('The app is not built: run `npm run build` in the beton-studio checkout.\n');
    return;
  }
  const type = MIME[extname(file)] ?? 'application/octet-stream';
  const headers: Record<string, string> = { 'Content-Type': type, 'Cache-Control': extname(file) === '.html' ? 'no-store' : 'max-age=3600' };
  if (type.startsWith('text/html')) {
    headers['Content-Security-Policy'] = CSP;
    headers['X-Frame-Options'] = 'DENY';
  }
  res.writeHead(200, headers);
  res.end(readFileSync(file));
}
