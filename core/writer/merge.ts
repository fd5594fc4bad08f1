import { constants as fsConstants } from 'node:fs';
import { access, open, rename, unlink } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { FORMAT_VERSION, HEADER_SIZE } from '../format/constants.js';
import { BetonEncodeError } from '../format/errors.js';
import { encodeHeader } from '../format/header.js';
import { regions } from '../format/regions.js';
import type { Field } from '../fields/field.js';
import { openTempFor, removeStaleTemps, tempPathFor } from './temp-files.js';
import type { OutputFile, StreamTarget } from './output-file.js';
import { StreamedFile } from './streamed-file.js';
import { isRemoteUrl } from '../remote/url.js';
import { copyAllocTable, copyMetadata, copyRange } from './merge-copy.js';
import { checkCompatible, type Input, openInput, openRemoteInput } from './merge-inputs.js';
import { writeFully } from './merge-io.js';
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
