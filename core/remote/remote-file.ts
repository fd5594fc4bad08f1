import { ALLOC_ENTRY_SIZE, HEADER_SIZE } from '../format/constants.js';
import { decodeHeader } from '../format/header.js';
import { openRangeClient } from './open-client.js';
import type { RangeClient } from './range-client.js';

/** Bytes asked for first: the header, the field table and, for a small file, the metadata too. */
const FIRST_GET = 1 << 16;

/**
 * The most the open fetches before the first data page. The metadata ends well before it
 * in most files, but the first page starts at a page boundary: with 2 GiB pages the gap
 * is 2 GiB of nothing. Bytes past this (a larger metadata table) are read on demand,
 * through the byte source's windows, like data.
 */
const PREFIX_CAP = 8 << 20;

/**
 * What a remote .beton's open fetched once, in shared memory so loader workers get it
 * without a request: everything before the first data page (header, field table,
 * metadata, up to PREFIX_CAP) and the allocation table at the end. Data pages are fetched on demand.
 */
export interface RemoteSnapshot {
  url: string;
  size: number;
  etag: string | null;
  pageSize: number;
  /** Bytes [0, prefix.byteLength) of the object. */
  prefix: SharedArrayBuffer;
  /** Bytes [tailStart, size): the allocation table. */
  tail: SharedArrayBuffer;
  tailStart: number;
}

export interface RemoteFile {
  snapshot: RemoteSnapshot;
  client: RangeClient;
}

const shared = (bytes: Uint8Array): SharedArrayBuffer => {
  const s = new SharedArrayBuffer(bytes.byteLength);
  new Uint8Array(s).set(bytes);
  return s;
};

/**
 * Opens a remote .beton with two or three ranged GETs: the first 64 KiB (header, field
 * table, metadata; its Content-Range gives the size, its ETag pins the version), the
 * allocation table, and the rest of the metadata if it was longer. Bad bytes are left for
 * the Reader's validation to name; only the header is read here, for the table's place.
 */
export async function openRemoteFile(url: string, client?: RangeClient): Promise<RemoteFile> {
  const c = client ?? (await openRangeClient(url));
  const first = await c.get(0, FIRST_GET, null);
  const { size, etag } = first;
  let prefix: Uint8Array = first.bytes;
  const header = decodeHeader(prefix.subarray(0, Math.min(prefix.byteLength, HEADER_SIZE)), url);
  const T = header.allocTablePtr;
  let tail: Uint8Array = new Uint8Array(0);
  let tailStart = size;
  if (T >= HEADER_SIZE && T < size) {
    tail = (await c.get(T, size - T, etag)).bytes;
    tailStart = T;
  }
  // The metadata ends where the first data page starts: the lowest heap pointer (or the table).
  let dataStart = Math.min(T, size);
  const view = new DataView(tail.buffer, tail.byteOffset, tail.byteLength);
  for (let off = 0; off + ALLOC_ENTRY_SIZE <= tail.byteLength; off += ALLOC_ENTRY_SIZE) {
    const ptr = Number(view.getBigUint64(off + 8, true));
    if (Number(view.getBigUint64(off + 16, true)) > 0 && ptr < dataStart) dataStart = ptr;
  }
  const prefixEnd = Math.min(dataStart, Math.max(prefix.byteLength, PREFIX_CAP));
  if (prefixEnd > prefix.byteLength) {
    const rest = await c.get(prefix.byteLength, prefixEnd - prefix.byteLength, etag);
    const all = new Uint8Array(prefix.byteLength + rest.bytes.byteLength);
    all.set(prefix);
    all.set(rest.bytes, prefix.byteLength);
    prefix = all;
  }
  return {
    client: c,
    snapshot: { url, size, etag, pageSize: header.pageSize, prefix: shared(prefix), tail: shared(tail), tailStart },
  };
}
