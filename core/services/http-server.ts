import { randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';
import type { ApiEvent } from '../api/contract.js';
import type { BetonService } from './beton-service.js';
import { BetonError } from '../format/errors.js';

export interface HttpServerOptions {
  service: BetonService;
  host?: string;
  port?: number;
  /** The built renderer (index.html + assets). */
  staticDir: string;
  token?: string;
  /**
   * Host names (NAME or NAME:PORT; IPv6 in brackets) to answer to besides the loopback
   * names of the bound address: for a bind beyond loopback, or a tunnel on another port.
   */
  allowedHosts?: readonly string[];
}

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/**
 * The `host:port` values a request's Host (and a browser's Origin) may name: the bound
 * address's loopback names (127.0.0.1 → 127.0.0.1, localhost; ::1 → [::1], localhost;
 * localhost → all three), plus the bound address itself when it is not loopback (never
 * the wildcards 0.0.0.0 / ::, which no browser should name), plus `extra`.
 */
export function allowedHostPorts(bound: string, port: number, extra: readonly string[] = []): Set<string> {
  const b = bound.toLowerCase();
  let names: string[];
  if (b === '127.0.0.1') names = ['127.0.0.1', 'localhost'];
  else if (b === '::1' || b === '[::1]') names = ['[::1]', 'localhost'];
  else if (b === 'localhost') names = LOOPBACK_NAMES;
  else names = [...LOOPBACK_NAMES, ...(b === '0.0.0.0' || b === '::' ? [] : [b.includes(':') ? `[${b}]` : b])];
  const set = new Set(names.map((n) => `${n}:${port}`));
  for (const e of extra) {
    const x = e.toLowerCase();
    set.add(/:\d+$/.test(x) && !x.endsWith(']') ? x : `${x}:${port}`);
  }
  return set;
}

/** A Host header as `name:port` (lowercase; port 80 when it names none), or null. */
function hostPort(host: string | undefined): string | null {
  if (!host) return null;
  const h = host.trim().toLowerCase();
  return /:\d+$/.test(h) && !h.endsWith(']') ? h : `${h}:80`;
}

/** An Origin header as `name:port` when it is plain http, else null (https, `null`, junk). */
function originHostPort(origin: string): string | null {
  try {
    const u = new URL(origin);
    if (u.protocol !== 'http:' || u.origin === 'null') return null;
    return `${u.hostname}:${u.port || '80'}`;
  } catch {
    return null;
  }
}

/** The CSP of the app's page: own scripts and styles only, data: images (thumbnails), no framing. */
export const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'";

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
 * (GET /api/events), plus the built renderer. Binds to loopback unless told otherwise.
 * In order, before any routing:
 * 1. Host must name this server (allowedHostPorts), for every request: a page of another
 *    site that rebinds its DNS name to 127.0.0.1 sends its own name and is refused.
 * 2. Origin, when a request has one (browsers send it on every POST and on cross-origin
 *    GETs), must be this server's; without one the client is not a browser (curl, scripts)
 *    and the token alone decides.
 * 3. The token: Authorization: Bearer or X-Beton-Token; `?token=` only for GET /api/events,
 *    because EventSource cannot set headers (a query string ends up in logs and history).
 */
export async function startHttpServer(
  o: HttpServerOptions,
): Promise<{ server: Server; url: string; token: string; close: () => Promise<void> }> {
  const token = o.token ?? randomBytes(24).toString('hex');
  const tokenBuf = Buffer.from(token);
  const authorized = (req: IncomingMessage, url: URL): boolean => {
    const auth = req.headers.authorization;
    const header = (auth?.startsWith('Bearer ') ? auth.slice(7) : undefined) ?? (req.headers['x-beton-token'] as string | undefined);
    const queryAllowed = req.method === 'GET' && url.pathname === '/api/events';
    const given = header ?? (queryAllowed ? url.searchParams.get('token') : null) ?? '';
    const b = Buffer.from(given);
    return b.length === tokenBuf.length && timingSafeEqual(b, tokenBuf);
  };
  // Filled in once listening (the port may be 0 until then); no request comes earlier.
  let allowed = new Set<string>();
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
    const host = hostPort(req.headers.host);
    if (host === null || !allowed.has(host)) {
      return send(res, 403, {
        ok: false,
        error: {
          code: 'HOST_NOT_ALLOWED',
          message: `this server answers to ${[...allowed].join(', ')}, not to Host "${String(req.headers.host ?? '').slice(0, 100)}"; open the URL beton serve printed (a tunnel must keep the port, or start beton serve with --allow-host NAME:PORT)`,
        },
      });
    }
    if (url.pathname.startsWith('/api/')) {
      const origin = req.headers.origin;
      if (origin !== undefined) {
        const o = originHostPort(origin);
        if (o === null || !allowed.has(o))
          return send(res, 403, {
            ok: false,
            error: {
              code: 'ORIGIN_NOT_ALLOWED',
              message: `requests from pages of ${origin.slice(0, 100)} are refused; only this server's own page may call it`,
            },
          });
      }
      if (!authorized(req, url)) {
        const inQuery =
          url.searchParams.has('token') && req.headers.authorization === undefined && req.headers['x-beton-token'] === undefined;
        const message =
          inQuery && url.pathname !== '/api/events'
            ? 'send the token in the X-Beton-Token header (or Authorization: Bearer); only GET /api/events takes it in the query string'
            : 'missing or wrong token; open the URL beton serve printed';
        return send(res, 401, { ok: false, error: { code: 'UNAUTHORIZED', message } });
      }
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
          send(res, env.ok ? 200 : statusOf(env.error.code), env);
        })
        .catch((e: Error) => {
          // Answer, then close the connection (the rest of the body is not read).
          res.setHeader('Connection', 'close');
          send(res, 413, { ok: false, error: { code: 'TOO_LARGE', message: e.message } });
        });
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return send(res, 405, { ok: false, error: { code: 'METHOD_NOT_ALLOWED', message: 'GET only' } });
    serveStatic(staticRoot, url.pathname, res);
  });
  await new Promise<void>((r, j) => {
    server.once('error', j);
    server.listen(o.port ?? 0, o.host ?? '127.0.0.1', () => r());
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : (o.port ?? 0);
  const host = o.host ?? '127.0.0.1';
  allowed = allowedHostPorts(host, port, o.allowedHosts);
  // A wildcard bind is reached on loopback from this machine; print a URL the Host check accepts.
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  const url = `http://${shown}:${port}/?token=${token}`;
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

/** HTTP status of a failed envelope: not found 404, refused 403, an existing output 409 (the UI asks), anything else the client's fault 400. */
export function statusOf(code: string): number {
  if (code === 'NOT_FOUND' || code === 'UNKNOWN_METHOD' || code === 'UNKNOWN_JOB') return 404;
  if (code === 'FORBIDDEN' || code === 'EXEC_DISABLED') return 403;
  if (code === 'OUTPUT_EXISTS') return 409;
  return 400;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': 'no-store',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** A request the API refuses unread: requests carry paths and settings, never data. */
const bodyTooLarge = (): BetonError =>
  new BetonError('TOO_LARGE', 'request body over 1 MiB', { hint: 'requests carry paths and settings, not data' });

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolveBody, reject) => {
    let size = 0;
    let over = Number(req.headers['content-length']) > MAX_BODY;
    if (over) reject(bodyTooLarge());
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => {
      if (over) return;
      size += c.length;
      if (size > MAX_BODY) {
        // Not req.destroy(): that would drop the 413 answer with the socket.
        over = true;
        chunks.length = 0;
        reject(bodyTooLarge());
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
    res
      .writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8' })
      .end('The app is not built: run `npm run build` in the beton-studio checkout.\n');
    return;
  }
  const type = MIME[extname(file)] ?? 'application/octet-stream';
  const headers: Record<string, string> = {
    'Content-Type': type,
    'Cache-Control': extname(file) === '.html' ? 'no-store' : 'max-age=3600',
  };
  if (type.startsWith('text/html')) {
    headers['Content-Security-Policy'] = CSP;
    headers['X-Frame-Options'] = 'DENY';
  }
  res.writeHead(200, headers);
  res.end(readFileSync(file));
}
