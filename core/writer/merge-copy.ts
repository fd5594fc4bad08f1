import { ALLOC_ENTRY_SIZE } from '../format/constants.js';
import { BetonFormatError } from '../format/errors.js';
import type { Input } from './merge-inputs.js';
import { type InputFile, readFully, writeFully } from './merge-io.js';
import type { OutputFile } from './output-file.js';

// The merge's copies (merge.ts): an input's metadata and allocation table with their pointers
// rebased, and its pages verbatim.

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
export async function copyMetadata(
  input: Input,
  out: OutputFile,
  dst: number,
  delta: number,
  progress: (n: number) => void,
): Promise<void> {
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
export async function copyAllocTable(
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
export async function copyRange(
  src: InputFile,
  from: number,
  dst: OutputFile,
  to: number,
  length: number,
  file: string,
  opts: { chunkBytes?: number; parallelCopies?: number },
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
