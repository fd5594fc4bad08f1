import { gzipSync } from 'node:zlib';

/** One ustar header block for a regular file `name` of `size` bytes (size in octal, as tar writes it). */
export function tarHeader(name: string, size: number): Buffer {
  const h = Buffer.alloc(512);
  h.write(name, 0, 100, 'utf8');
  h.write('0000644\0', 100);
  h.write('0000000\0', 108);
  h.write('0000000\0', 116);
  h.write(size.toString(8).padStart(11, '0') + '\0', 124);
  h.write('00000000000\0', 136);
  h.write('        ', 148);
  h.write('0', 156);
  h.write('ustar\0', 257);
  h.write('00', 263);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148);
  return h;
}

/** A plain tar of small members (name, bytes), in order, with the end-of-archive blocks. */
export function tarOf(members: ReadonlyArray<[string, Buffer | string]>): Buffer {
  const parts: Buffer[] = [];
  for (const [name, data] of members) {
    const b = Buffer.from(data);
    parts.push(tarHeader(name, b.length), b, Buffer.alloc((512 - (b.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

/**
 * A gzip bomb: a .tar.gz whose one member `name` declares and inflates to `size` bytes of
 * zeros, written in milliseconds: gzip streams may be concatenated, so one compressed
 * 64 MiB run of zeros (~64 KB) is repeated.
 */
export function gzipBomb(name: string, size: number): Buffer {
  const RUN = 64 << 20;
  const run = gzipSync(Buffer.alloc(RUN), { level: 9 });
  const parts: Buffer[] = [gzipSync(tarHeader(name, size))];
  for (let left = size; left > 0; left -= RUN) parts.push(left >= RUN ? run : gzipSync(Buffer.alloc(left)));
  parts.push(gzipSync(Buffer.alloc(1024 + ((512 - (size % 512)) % 512))));
  return Buffer.concat(parts);
}
