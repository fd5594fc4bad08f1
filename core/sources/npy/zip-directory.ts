import type { FileHandle } from 'node:fs/promises';
import { BetonEncodeError } from '../../format/errors.js';

/**
 * Just enough of the zip format to read .npz files in place: the central directory
 * (with ZIP64, which numpy's savez always asks for) and each member's data offset.
 * Only the tail of the file and the local headers are read, never the members.
 */
export interface ZipEntry {
  name: string;
  /** 0 = stored, 8 = deflated. */
  method: number;
  compressedSize: number;
  size: number;
  /** Offset of the member's local header. */
  headerOffset: number;
}

const EOCD_SIG = 0x06054b50;
const ZIP64_LOCATOR_SIG = 0x07064b50;
const ZIP64_EOCD_SIG = 0x06064b50;
const CENTRAL_SIG = 0x02014b50;
const LOCAL_SIG = 0x04034b50;
const MAX_COMMENT = 0xffff;

export async function readZipDirectory(fh: FileHandle, fileSize: number, where: string): Promise<ZipEntry[]> {
  const tailLen = Math.min(fileSize, 22 + MAX_COMMENT + 20);
  const tail = await readAt(fh, fileSize - tailLen, tailLen);
  const tv = view(tail);
  let eocd = -1;
  for (let i = tail.byteLength - 22; i >= 0; i--) {
    if (tv.getUint32(i, true) === EOCD_SIG) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw bad(where, 'not a zip file (no end-of-central-directory record); .npz files are zip archives');
  let count = tv.getUint16(eocd + 10, true);
  let cdSize = tv.getUint32(eocd + 12, true);
  let cdOffset = tv.getUint32(eocd + 16, true);
  if (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) {
    const loc = eocd - 20;
    if (loc < 0 || tv.getUint32(loc, true) !== ZIP64_LOCATOR_SIG) throw bad(where, 'ZIP64 locator missing');
    const z64 = await readAt(fh, num(tv.getBigUint64(loc + 8, true)), 56);
    const zv = view(z64);
    if (zv.getUint32(0, true) !== ZIP64_EOCD_SIG) throw bad(where, 'ZIP64 end record missing');
    count = num(zv.getBigUint64(32, true));
    cdSize = num(zv.getBigUint64(40, true));
    cdOffset = num(zv.getBigUint64(48, true));
  }
  if (cdOffset + cdSize > fileSize) throw bad(where, 'the central directory lies past the end of the file (truncated?)');
  const cd = await readAt(fh, cdOffset, cdSize);
  const cv = view(cd);
  const entries: ZipEntry[] = [];
  let p = 0;
  for (let k = 0; k < count; k++) {
    if (p + 46 > cd.byteLength || cv.getUint32(p, true) !== CENTRAL_SIG) throw bad(where, `central directory entry ${k} is corrupt`);
    const flags = cv.getUint16(p + 8, true);
    const method = cv.getUint16(p + 10, true);
    let compressedSize = cv.getUint32(p + 20, true);
    let size = cv.getUint32(p + 24, true);
    const nameLen = cv.getUint16(p + 28, true);
    const extraLen = cv.getUint16(p + 30, true);
    const commentLen = cv.getUint16(p + 32, true);
    let headerOffset = cv.getUint32(p + 42, true);
    const name = new TextDecoder(flags & 0x800 ? 'utf-8' : 'latin1').decode(cd.subarray(p + 46, p + 46 + nameLen));
    if (flags & 1) throw bad(where, `member ${name} is encrypted`);
    // ZIP64 extra field: the 64-bit values present are exactly those saturated above, in this order.
    let e = p + 46 + nameLen;
    const extraEnd = e + extraLen;
    while (e + 4 <= extraEnd) {
      const id = cv.getUint16(e, true);
      const len = cv.getUint16(e + 2, true);
      if (id === 0x0001) {
        let q = e + 4;
        const next = (): number => {
          const v = num(cv.getBigUint64(q, true));
          q += 8;
          return v;
        };
        if (size === 0xffffffff) size = next();
        if (compressedSize === 0xffffffff) compressedSize = next();
        if (headerOffset === 0xffffffff) headerOffset = next();
      }
      e += 4 + len;
    }
    entries.push({ name, method, compressedSize, size, headerOffset });
    p = extraEnd + commentLen;
  }
  return entries;
}

/** Where a member's (possibly compressed) bytes start: after its local header. */
export async function zipDataOffset(fh: FileHandle, entry: ZipEntry, where: string): Promise<number> {
  const h = await readAt(fh, entry.headerOffset, 30);
  const v = view(h);
  if (h.byteLength < 30 || v.getUint32(0, true) !== LOCAL_SIG) throw bad(where, `member ${entry.name}: local header is corrupt`);
  return entry.headerOffset + 30 + v.getUint16(26, true) + v.getUint16(28, true);
}

async function readAt(fh: FileHandle, pos: number, len: number): Promise<Uint8Array> {
  const buf = new Uint8Array(len);
  let got = 0;
  while (got < len) {
    const { bytesRead } = await fh.read(buf, got, len - got, pos + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return buf.subarray(0, got);
}

const view = (u: Uint8Array): DataView => new DataView(u.buffer, u.byteOffset, u.byteLength);

function num(b: bigint): number {
  if (b > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError('zip offset beyond 2^53');
  return Number(b);
}

function bad(where: string, why: string): BetonEncodeError {
  return new BetonEncodeError('BAD_OPTIONS', `${where}: ${why}`, { source: where });
}
