import { createGunzip } from 'node:zlib';
import { extract } from 'tar-stream';
import { regularReadStream } from '../../native/regular-file.js';

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

/**
 * Limits on what a shard may make us hold, checked before and while a member streams: a
 * tar header's size is untrusted (a 14 MB .tar.gz can declare and inflate a 3 GiB member),
 * so a member larger than this, or a sample whose members add up to more, is refused when
 * its header says so, and its bytes are counted as they arrive (gzip-expanded), never
 * gathered past the limit. No .beton page holds an object this big anyway.
 */
export const MAX_MEMBER_BYTES = 512 * 1024 * 1024;
export const MAX_SAMPLE_BYTES = 512 * 1024 * 1024;
/** Members per sample (WebDataset samples have a few; a shard of one key with a million members is hostile). */
export const MAX_SAMPLE_MEMBERS = 4096;

/** The shard is readable but refused: a member too large, or a key with the same extension twice. */
export class ShardRefusal extends Error {}

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
    if (this.reason instanceof ShardRefusal) return `${this.shard}: key ${this.key}: ${this.reason.message}`;
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
 * error ends the iteration with a ShardReadError naming the key being read; so does a
 * member over MAX_MEMBER_BYTES (or a sample over MAX_SAMPLE_BYTES / MAX_SAMPLE_MEMBERS),
 * and a key holding the same extension twice (`a.cls` then `a.cls`: WebDataset refuses such
 * a sample; keeping one silently would store the wrong label).
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
      if (current.members.has(split.ext))
        throw new ShardRefusal(`member ${name} repeats extension .${split.ext} of the same key (WebDataset refuses such a sample)`);
      if (current.members.size >= MAX_SAMPLE_MEMBERS) throw new ShardRefusal(`more than ${MAX_SAMPLE_MEMBERS} members in one sample`);
      const held = [...current.members.values()].reduce((n, b) => n + b.byteLength, 0);
      const tooLarge = (size: number): ShardRefusal =>
        new ShardRefusal(
          size > MAX_MEMBER_BYTES
            ? `member ${name} holds ${size} bytes, more than the ${MAX_MEMBER_BYTES} a member may`
            : `the sample's members add up to ${held + size} bytes, more than the ${MAX_SAMPLE_BYTES} a sample may`,
        );
      const declared = entry.header.size ?? 0;
      if (declared > MAX_MEMBER_BYTES || held + declared > MAX_SAMPLE_BYTES) throw tooLarge(declared);
      const chunks: Buffer[] = [];
      let got = 0;
      for await (const c of entry) {
        // Counted as they stream (after gunzip): the header is not trusted to bound them.
        got += (c as Buffer).byteLength;
        if (got > MAX_MEMBER_BYTES || held + got > MAX_SAMPLE_BYTES) throw tooLarge(got);
        chunks.push(c as Buffer);
      }
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
