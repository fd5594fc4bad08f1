import { constants as fsConstants } from 'node:fs';
import { access, open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { ALLOC_ENTRY_SIZE, FIELD_DESCRIPTOR_SIZE, FORMAT_VERSION, HEADER_SIZE } from '../format/constants.js';
import { BetonEncodeError, BetonFormatError } from '../format/errors.js';
import { encodeHeader, type Header } from '../format/header.js';
import { regions } from '../format/regions.js';
import type { Field } from '../fields/field.js';
import { Reader } from '../reader/reader.js';
import { openTempFor, removeStaleTemps, tempPathFor } from './temp-files.js';
import { openRegular } from '../native/regular-file.js';
import type { OutputFile, StreamTarget } from './output-file.js';
import { StreamedFile } from './streamed-file.js';
import { RemoteInputFile } from '../remote/remote-input-file.js';
import { isRemoteUrl } from '../remote/url.js';

export interface MergeProgress {
  /** Bytes of metadata, pages and allocation table copied so far. */
  bytesDone: number;
  bytesTotal: number;
  elapsedMs: number;
  bytesPerSec: number;
  etaMs: number | null;
}

export interface MergeOptions {
  /** Replace an existing output file (default false: refuse, a merge output is usually big and costly to rebuild). */
  overwrite?: boolean;
  signal?: AbortSignal;
  onProgress?: (p: MergeProgress) => void;
  /** Handlers for custom (type 255) fields, by name, as for Reader.open. */
  customFields?: Record<string, Field>;
  /** Copy buffer size in bytes (default 8 MiB) and how many copies run at once (default 4). */
  chunkBytes?: number;
  parallelCopies?: number;
  /** Stream the output as it is written (an S3 multipart upload), as DatasetWriterOptions.stream. */
  stream?: StreamTarget;
}

export interface MergeReport {
  path: string;
  inputs: Array<{ path: string; numSamples: number; pages: number }>;
  numSamples: number;
  pages: number;
  pageSize: number;
  fileSize: number;
  /** Bytes copied from the inputs (metadata + pages + allocation tables). */
  bytesCopied: number;
  elapsedMs: number;
  bytesPerSec: number;
}

/** What the merge needs to know about one input, taken from a fully validated open. */
/** What the merge reads an input through: a local file's handle, or ranged GETs (remote-input-file.ts). */
type InputFile = Pick<FileHandle, 'close'> & {
  read(buf: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
};

interface Input {
  path: string;
  fh: InputFile;
  header: Header;
  fileSize: number;
  descriptors: Uint8Array;
  metadataOffset: number;
  dataStart: number;
  pages: number;
  /** Field names and types, for the schema check's messages. */
  fields: Array<{ name: string; type: string; typeId: number }>;
  recordSize: number;
  /** Absolute offsets, within a metadata record, of every u64 pointer. */
  pointerOffsets: number[];
}

/**
 * Concatenates .beton files with identical fields into one, samples in argument order.
 * Nothing is decoded or re-encoded: pages are copied whole (so every object keeps its
 * offset within its page), and the only bytes rewritten are the pointers — each field
 * says where its metadata holds them (Field.pointerOffsets) — and the allocation table's
 * sample ids and pointers. The output is written under a temporary name in its folder,
 * fsynced and renamed, so a failed or cancelled merge leaves nothing behind.
 */
export async function mergeDatasets(inputPaths: readonly string[], output: string, opts: MergeOptions = {}): Promise<MergeReport> {
  const t0 = performance.now();
  if (inputPaths.length === 0) throw new BetonEncodeError('BAD_OPTIONS', 'merge needs at least one input file');
  const out = resolve(output);
  if (!opts.overwrite && (await exists(out))) {
    throw new BetonEncodeError(
      'OUTPUT_EXISTS',
      `${out} already exists; choose another output or pass --force (overwrite: true) to replace it`,
    );
  }
  const inputs: Input[] = [];
  try {
    for (const p of inputPaths)
      inputs.push(isRemoteUrl(p) ? await openRemoteInput(p, opts.customFields) : await openInput(resolve(p), opts.customFields));
    checkCompatible(inputs);
    return await writeMerged(inputs, out, opts, t0);
  } finally {
    for (const i of inputs) await i.fh.close().catch(() => undefined);
  }
}

async function exists(p: string): Promise<boolean> {
  try {
    await access(p, fsConstants.F_OK);
    return true;
  } catch {
    return false;
  }
}

async function openInput(path: string, customFields: Record<string, Field> | undefined): Promise<Input> {
  // Our own handle first: the merge copies through it, so a file replaced after the
  // validation below cannot slip in unvalidated bytes under the same name.
  const { fh, size: fileSize } = await openRegular(path, '.beton file');
  try {
    // Full validation (header, field table, allocation table, every pointer): a truncated
    // or foreign input fails here with its name, before any output exists.
    const reader = Reader.openSync(path, customFields ? { customFields } : {});
    try {
      if (reader.fileSize !== fileSize) {
        throw new BetonFormatError(
          'CORRUPT_DATA',
          `${path}: the file changed while it was being opened (${fileSize} then ${reader.fileSize} bytes); retry once nothing writes to it`,
          { file: path },
        );
      }
      return await describeInput(path, fh, reader, fileSize);
    } finally {
      reader.close();
    }
  } catch (e) {
    await fh.close().catch(() => undefined);
    throw e;
  }
}

/** An opened, validated input: what the merge reads from its Reader and its handle. */
async function describeInput(path: string, fh: InputFile, reader: Reader, fileSize: number): Promise<Input> {
  const F = reader.fields.length;
  const descriptors = new Uint8Array(F * FIELD_DESCRIPTOR_SIZE);
  await readFully(fh, descriptors, HEADER_SIZE, path);
  const pointerOffsets: number[] = [];
  reader.fields.forEach(({ field }, f) => {
    for (const p of field.pointerOffsets()) pointerOffsets.push(reader.recordLayout.offsets[f]! + p);
  });
  return {
    path,
    fh,
    header: reader.header,
    fileSize,
    descriptors,
    metadataOffset: reader.regions.metadata.offset,
    dataStart: reader.regions.dataStart,
    pages: reader.numPages,
    fields: reader.fields.map(({ name, field }) => ({ name, type: field.type, typeId: field.typeId })),
    recordSize: reader.recordLayout.size,
    pointerOffsets,
  };
}

/**
 * A remote input (s3:// or https://), read in place: the same full validation as a local
 * file (Reader.open), then every copy below is a ranged GET pinned to the version that was
 * validated, so the local scratch is the copy's chunks, not the input.
 */
async function openRemoteInput(url: string, customFields: Record<string, Field> | undefined): Promise<Input> {
  const reader = await Reader.open(url, customFields ? { customFields } : {});
  try {
    const remote = reader.remote!;
    const fh = new RemoteInputFile(remote.client, remote.snapshot.size, remote.snapshot.etag);
    return await describeInput(url, fh, reader, remote.snapshot.size);
  } finally {
    reader.close();
  }
}

/** Same page size and byte-identical field tables (names, type ids, argument blobs), or a one-line refusal naming both files. */
function checkCompatible(inputs: readonly Input[]): void {
  const a = inputs[0]!;
  for (const b of inputs.slice(1)) {
    const why = (what: string): never => {
      throw new BetonEncodeError(
        'BAD_SCHEMA',
        `cannot merge ${b.path} into ${a.path}: ${what}; merge needs files built with the same fields and page size`,
      );
    };
    if (b.header.pageSize !== a.header.pageSize)
      why(`page size ${b.header.pageSize} vs ${a.header.pageSize} bytes (rebuild one with --page-size ${a.header.pageSize})`);
    const fa = a.fields.map((f) => `${f.name}:${f.type}`).join(', ');
    const fb = b.fields.map((f) => `${f.name}:${f.type}`).join(', ');
    if (b.fields.length !== a.fields.length) why(`fields [${fb}] vs [${fa}]`);
    for (let f = 0; f < a.fields.length; f++) {
      const x = a.fields[f]!;
      const y = b.fields[f]!;
      if (x.name !== y.name || x.typeId !== y.typeId || x.type !== y.type)
        why(`field ${f} is "${y.name}" (${y.type}) vs "${x.name}" (${x.type})`);
      const off = f * FIELD_DESCRIPTOR_SIZE;
      if (!sameBytes(a.descriptors.subarray(off, off + FIELD_DESCRIPTOR_SIZE), b.descriptors.subarray(off, off + FIELD_DESCRIPTOR_SIZE))) {
        why(`field "${x.name}" (${x.type}) has different arguments (e.g. another dtype or shape)`);
      }
    }
  }
}

function sameBytes(x: Uint8Array, y: Uint8Array): boolean {
  return x.byteLength === y.byteLength && Buffer.compare(x, y) === 0;
}

async function writeMerged(inputs: readonly Input[], out: string, opts: MergeOptions, t0: number): Promise<MergeReport> {
  const first = inputs[0]!;
  const F = first.fields.length;
  const R = first.recordSize;
  const ps = first.header.pageSize;
  const N = inputs.reduce((s, i) => s + i.header.numSamples, 0);
  const P = inputs.reduce((s, i) => s + i.pages, 0);
  const reg = regions(F, N, R, ps);
  const T = P > 0 ? reg.dataStart + P * ps : reg.metadataEnd;
  const allocBytes = inputs.map((i) => i.fileSize - i.header.allocTablePtr);
  const fileSize = T + allocBytes.reduce((s, b) => s + b, 0);
  const bytesTotal = N * R + P * ps + (fileSize - T);

  let bytesDone = 0;
  const progress = (n: number): void => {
    bytesDone += n;
    opts.signal?.throwIfAborted();
    if (!opts.onProgress) return;
    const elapsedMs = performance.now() - t0;
    const rate = bytesDone / Math.max(elapsedMs / 1000, 1e-9);
    opts.onProgress({
      bytesDone,
      bytesTotal,
      elapsedMs,
      bytesPerSec: rate,
      etaMs: rate > 0 ? ((bytesTotal - bytesDone) / rate) * 1000 : null,
    });
  };

  opts.signal?.throwIfAborted();
  // Files a killed earlier merge into this output left behind (its process is gone).
  await removeStaleTemps(out);
  const tmp = tempPathFor(out);
  const fh = await openTempFor(tmp, out, 'w+');
  // Streamed: the head (up to the first page, and at least a 5 MiB part) stays local and
  // the pages and tables stream out in file order, so the copies below go in file order
  // (all metadata, all pages, all allocation tables) and one at a time.
  const dst: OutputFile = opts.stream ? new StreamedFile(fh, opts.stream, Math.max(reg.dataStart, opts.stream.headBytes)) : fh;
  const copyOpts = opts.stream ? { ...opts, parallelCopies: 1 } : opts;
  let ok = false;
  try {
    // Final size up front: the gap before the first page stays a hole, and the copies
    // below write into allocated extents instead of growing the file write by write.
    await dst.truncate(fileSize);
    await writeFully(dst, first.descriptors, HEADER_SIZE);
    // Pages move by whole pages, so each object keeps its offset within its page and
    // every pointer into an input's pages shifts by the same amount.
    const placed: Array<{ input: Input; sampleBase: number; pageBase: number; delta: number; allocPos: number }> = [];
    let sampleBase = 0;
    let pageBase = 0;
    let allocPos = T;
    for (const [k, input] of inputs.entries()) {
      placed.push({ input, sampleBase, pageBase, delta: reg.dataStart + pageBase * ps - input.dataStart, allocPos });
      allocPos += allocBytes[k]!;
      sampleBase += input.header.numSamples;
      pageBase += input.pages;
    }
    for (const p of placed) await copyMetadata(p.input, dst, reg.metadata.offset + p.sampleBase * R, p.delta, progress);
    for (const p of placed)
      await copyRange(
        p.input.fh,
        p.input.dataStart,
        dst,
        reg.dataStart + p.pageBase * ps,
        p.input.pages * ps,
        p.input.path,
        copyOpts,
        progress,
      );
    dst.markTail?.(T);
    for (const p of placed) await copyAllocTable(p.input, dst, p.allocPos, p.sampleBase, p.delta, progress);
    const header = encodeHeader({ version: FORMAT_VERSION, numFields: F, pageSize: ps, numSamples: N, allocTablePtr: T });
    await writeFully(dst, header, 0);
    await fh.sync();
    await fh.close();
    opts.signal?.throwIfAborted();
    await rename(tmp, out);
    ok = true;
    await syncDir(dirname(out));
  } finally {
    if (!ok) {
      await fh.close().catch(() => undefined);
      await unlink(tmp).catch(() => undefined);
    }
  }
  const elapsedMs = performance.now() - t0;
  return {
    path: out,
    inputs: inputs.map((i) => ({ path: i.path, numSamples: i.header.numSamples, pages: i.pages })),
    numSamples: N,
    pages: P,
    pageSize: ps,
    fileSize,
    bytesCopied: bytesTotal,
    elapsedMs,
    bytesPerSec: bytesTotal / Math.max(elapsedMs / 1000, 1e-9),
  };
}

/** The rename is durable only once the folder's entry is on disk; best effort (not every FS allows it). */
async function syncDir(dir: string): Promise<void> {
  const d = await open(dir, 'r').catch(() => null);
  if (!d) return;
  await d.sync().catch(() => undefined);
  await d.close().catch(() => undefined);
}

const MAX_U64 = 2n ** 64n - 1n;

/** Adds `delta` to the u64 at `at`; a result outside u64 means the input held a garbage pointer. */
function rebase(view: DataView, at: number, delta: bigint, file: string, what: string): void {
  const v = view.getBigUint64(at, true) + delta;
  if (v < 0n || v > MAX_U64)
    throw new BetonFormatError('BAD_POINTER', `${file}: ${what} holds a pointer that cannot be moved (${v - delta}); the file is corrupt`, {
      file,
    });
  view.setBigUint64(at, v, true);
}

/** The input's metadata table, pointers rebased, in chunks of whole records. */
async function copyMetadata(input: Input, out: OutputFile, dst: number, delta: number, progress: (n: number) => void): Promise<void> {
  const R = input.recordSize;
  const n = input.header.numSamples;
  if (n === 0) return;
  const per = Math.max(1, Math.floor((4 << 20) / R));
  const buf = new Uint8Array(per * R);
  const d = BigInt(delta);
  for (let i = 0; i < n; i += per) {
    const count = Math.min(per, n - i);
    const chunk = buf.subarray(0, count * R);
    await readFully(input.fh, chunk, input.metadataOffset + i * R, input.path);
    if (delta !== 0 && input.pointerOffsets.length > 0) {
      const view = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      for (let r = 0; r < count; r++) {
        for (const p of input.pointerOffsets) rebase(view, r * R + p, d, input.path, `sample ${i + r}`);
      }
    }
    await writeFully(out, chunk, dst + i * R);
    progress(chunk.byteLength);
  }
}

/** The input's allocation table with sample ids shifted by `sampleBase` and pointers by `delta`. */
async function copyAllocTable(
  input: Input,
  out: OutputFile,
  dst: number,
  sampleBase: number,
  delta: number,
  progress: (n: number) => void,
): Promise<void> {
  const total = input.fileSize - input.header.allocTablePtr;
  const buf = new Uint8Array(ALLOC_ENTRY_SIZE * 43690);
  const base = BigInt(sampleBase);
  const d = BigInt(delta);
  for (let done = 0; done < total;) {
    const chunk = buf.subarray(0, Math.min(buf.byteLength, total - done));
    await readFully(input.fh, chunk, input.header.allocTablePtr + done, input.path);
    const view = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    for (let o = 0; o < chunk.byteLength; o += ALLOC_ENTRY_SIZE) {
      view.setBigUint64(o, view.getBigUint64(o, true) + base, true);
      rebase(view, o + 8, d, input.path, `allocation entry ${(done + o) / ALLOC_ENTRY_SIZE}`);
    }
    await writeFully(out, chunk, dst + done);
    done += chunk.byteLength;
    progress(chunk.byteLength);
  }
}

/**
 * Copies `length` bytes verbatim. Several chunks are in flight at once: each read or write
 * runs on libuv's thread pool, so reading one chunk overlaps writing another.
 */
async function copyRange(
  src: InputFile,
  from: number,
  dst: OutputFile,
  to: number,
  length: number,
  file: string,
  opts: MergeOptions,
  progress: (n: number) => void,
): Promise<void> {
  const chunk = opts.chunkBytes ?? 8 << 20;
  const lanes = Math.max(1, opts.parallelCopies ?? 4);
  let next = 0;
  const lane = async (): Promise<void> => {
    const buf = new Uint8Array(Math.min(chunk, length));
    try {
      while (next < length) {
        const off = next;
        const n = Math.min(chunk, length - off);
        next += n;
        const part = buf.subarray(0, n);
        await readFully(src, part, from + off, file);
        await writeFully(dst, part, to + off);
        progress(n);
      }
    } catch (e) {
      next = length; // the other lanes stop at their next chunk
      throw e;
    }
  };
  if (length === 0) return;
  // allSettled: no lane may still be writing when the caller closes and removes the file.
  const results = await Promise.allSettled(Array.from({ length: lanes }, lane));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

async function readFully(fh: InputFile, buf: Uint8Array, pos: number, file: string): Promise<void> {
  for (let got = 0; got < buf.byteLength;) {
    const { bytesRead } = await fh.read(buf, got, buf.byteLength - got, pos + got);
    if (bytesRead === 0) {
      throw new BetonFormatError(
        'TRUNCATED',
        `${file}: the file ends at byte ${pos + got} while ${buf.byteLength - got} more bytes were expected; it was cut short during the merge`,
        { file, offset: pos + got },
      );
    }
    got += bytesRead;
  }
}

async function writeFully(fh: OutputFile, buf: Uint8Array, pos: number): Promise<void> {
  for (let put = 0; put < buf.byteLength;) {
    const { bytesWritten } = await fh.write(buf, put, buf.byteLength - put, pos + put);
    put += bytesWritten;
  }
}
