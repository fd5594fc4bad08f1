import { createGunzip } from 'node:zlib';
import { extract } from 'tar-stream';
import { regularReadStream } from '../native/regular-file.js';

/**
 * One WebDataset sample as it comes out of a shard: the members that share a key, in
 * archive order. The key is the member's path up to the first dot of its basename
 * (`train/000123.seg.png` → key `train/000123`, extension `seg.png`), as WebDataset's
 * `base_plus_ext` splits it.
 */
export interface TarGroup {
  key: string;
  /** Extension (lower-cased) → member bytes. */
  members: Map<string, Uint8Array>;
}

/** The shard went wrong part way (cut short, bad gzip, not a tar): where, for the message. */
export class ShardReadError extends Error {
  constructor(
    readonly shard: string,
    /** The key of the sample being read when it failed (its members so far are lost), or null before the first. */
    readonly key: string | null,
    /** The member being read when it failed, or null when it failed between members. */
    readonly member: string | null,
    readonly reason: Error,
  ) {
    super(reason.message);
  }

  /** "cut short in member 000001.jpg (key 000001): Unexpected end of data". */
  describe(): string {
    const where = this.member
      ? `in member ${this.member} (key ${this.key})`
      : this.key !== null
        ? `after member(s) of key ${this.key}`
        : 'before its first member';
    return `${this.shard}: the shard is corrupt or cut short ${where}: ${this.reason.message}`;
  }
}

/** Splits a member path into key and extension; null for names without an extension. */
export function splitMemberName(name: string): { key: string; ext: string } | null {
  const slash = name.lastIndexOf('/');
  const base = name.slice(slash + 1);
  const dot = base.indexOf('.');
  if (dot <= 0) return null;
  return { key: name.slice(0, slash + 1) + base.slice(0, dot), ext: base.slice(dot + 1).toLowerCase() };
}

export const isGzipShard = (path: string): boolean => /\.(tar\.gz|tgz)$/i.test(path);

/**
 * Streams one shard's samples: the file is read through tar-stream (and node:zlib's
 * gunzip for .tar.gz / .tgz), one member at a time, so memory holds one sample whatever the
 * shard's size. Members with the same key that follow each other form a sample (as in
 * WebDataset); directories, links and names without an extension are skipped. A read
 * error ends the iteration with a ShardReadError naming the key being read.
 */
export async function* tarGroups(shard: string): AsyncGenerator<TarGroup> {
  // Through the one opener: a regular file, and under beton serve still inside the served folders.
  let src: ReturnType<typeof regularReadStream>;
  try {
    src = regularReadStream(shard);
  } catch (e) {
    throw new ShardReadError(shard, null, null, e as Error);
  }
  const ex = extract();
  if (isGzipShard(shard)) {
    const gz = createGunzip();
    gz.on('error', (e) => ex.destroy(e));
    src.pipe(gz).pipe(ex);
  } else src.pipe(ex);
  src.on('error', (e) => ex.destroy(e));
  let current: TarGroup | null = null;
  let member: string | null = null;
  try {
    for await (const entry of ex) {
      const { name, type } = entry.header;
      const split = type === 'file' || type === 'contiguous-file' || type == null ? splitMemberName(name) : null;
      if (!split) {
        entry.resume();
        continue;
      }
      if (current && current.key !== split.key) {
        const done: TarGroup = current;
        current = null;
        yield done;
      }
      current ??= { key: split.key, members: new Map() };
      member = name;
      const chunks: Buffer[] = [];
      for await (const c of entry) chunks.push(c as Buffer);
      member = null;
      const buf = Buffer.concat(chunks);
      // A Uint8Array over exactly these bytes (Buffer.concat may return a pooled slice).
      current.members.set(split.ext, new Uint8Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength)));
    }
  } catch (e) {
    throw new ShardReadError(shard, current?.key ?? null, member, e as Error);
  } finally {
    src.destroy();
    ex.destroy();
  }
  if (current) yield current;
}
