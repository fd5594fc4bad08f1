import { createReadStream, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback HTTP range server over files on disk, read at their offsets as asked: unlike
 * remote-servers.ts (bytes held in memory), it can serve a sparse file of tens of GiB
 * (helpers/sparse-beton.ts). Every answer is a 206 with an exact Content-Range and a
 * strong ETag; it counts the bytes it sent, so a test can bound what a reader fetched.
 */
export interface FileRangeServer {
  origin: string;
  /** Bytes sent in bodies so far, and the ranged GETs answered. */
  sent(): { bytes: number; requests: number };
  stop(): Promise<void>;
}

export async function startFileRangeServer(files: Record<string, string>): Promise<FileRangeServer> {
  let bytes = 0;
  let requests = 0;
  const server: Server = createServer((req, res) => {
    const path = files[(req.url ?? '').slice(1)];
    if (!path) return void res.writeHead(404).end();
    const size = statSync(path).size;
    const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    if (!m) return void res.writeHead(416).end();
    const start = Number(m[1]);
    const end = Math.min(Number(m[2]), size - 1);
    if (start > end) return void res.writeHead(416, { 'content-range': `bytes */${size}` }).end();
    requests++;
    bytes += end - start + 1;
    res.writeHead(206, {
      'content-range': `bytes ${start}-${end}/${size}`,
      'content-length': String(end - start + 1),
      etag: `"${size}"`,
    });
    createReadStream(path, { start, end }).pipe(res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sent: () => ({ bytes, requests }),
    stop: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
