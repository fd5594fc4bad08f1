import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';
import { mergeDatasets } from '../../core/writer/merge.js';
import type { StreamTarget } from '../../core/writer/output-file.js';
import { StreamedFile } from '../../core/writer/streamed-file.js';
import { streamPartSize } from '../../core/remote/s3-stream-upload.js';
import { BytesField, IntField } from '../../core/index.js';

/**
 * The writer's half of a streamed output, without a network: a target that collects the
 * streamed bytes. The object S3 would assemble (the local file's head + the streamed bytes
 * + the local file's rest) must be the plain local write's bytes, and the local file must
 * hold the head and the tail only.
 */
const dir = mkdtempSync(join(tmpdir(), 'beton-streamed-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

class Collect implements StreamTarget {
  readonly headBytes: number;
  keepEnd: number | null = null;
  readonly chunks: Buffer[] = [];
  constructor(headBytes: number) {
    this.headBytes = headBytes;
  }
  begin(keepEnd: number): void {
    this.keepEnd = keepEnd;
  }
  append(bytes: Uint8Array): Promise<void> {
    this.chunks.push(Buffer.from(bytes));
    return Promise.resolve();
  }
  /** The object as S3 would join it: part 1 (the local head), the streamed parts, the local rest. */
  assemble(local: string): Buffer {
    const file = readFileSync(local);
    const keepEnd = Math.min(this.keepEnd ?? Math.min(file.length, this.headBytes), file.length);
    const streamed = Buffer.concat(this.chunks);
    return Buffer.concat([file.subarray(0, keepEnd), streamed, file.subarray(keepEnd + streamed.length)]);
  }
}

const schema = { id: new IntField(), blob: new BytesField() };
function* samples(n: number, seed: number) {
  for (let i = 0; i < n; i++) {
    const blob = new Uint8Array(20_000 + ((i * 7919 + seed) % 90_000));
    for (let k = 0; k < blob.length; k += 97) blob[k] = (i + k + seed) & 255;
    yield { id: i, blob };
  }
}

describe('StreamedFile', () => {
  it('a write streamed through it assembles into the local write, byte for byte; locally only the head and tail', async () => {
    const plain = join(dir, 'plain.beton');
    const streamed = join(dir, 'streamed.beton');
    const opts = { pageSize: 2 ** 21, numWorkers: 0, numSamples: 300 };
    await new DatasetWriter(plain, schema, opts).write(samples(300, 1));
    const target = new Collect(5 * 2 ** 20);
    await new DatasetWriter(streamed, schema, { ...opts, stream: target }).write(samples(300, 1));
    const want = readFileSync(plain);
    expect(want.length).toBeGreaterThan(12 * 2 ** 20);
    // The first page starts at 2 MiB: part 1 takes the first pages up to 5 MiB.
    expect(target.keepEnd).toBe(5 * 2 ** 20);
    expect(target.assemble(streamed).equals(want)).toBe(true);
    // Sparse: the streamed middle never touched the local disk.
    expect(statSync(streamed).blocks * 512).toBeLessThan(target.keepEnd! + 2 ** 20);
  });

  it('a merge streamed through it assembles into the local merge', async () => {
    const a = join(dir, 'a.beton');
    const b = join(dir, 'b.beton');
    const opts = { pageSize: 2 ** 21, numWorkers: 0 };
    await new DatasetWriter(a, schema, { ...opts, numSamples: 150 }).write(samples(150, 2));
    await new DatasetWriter(b, schema, { ...opts, numSamples: 170 }).write(samples(170, 3));
    const plain = join(dir, 'merged.beton');
    await mergeDatasets([a, b], plain);
    const target = new Collect(5 * 2 ** 20);
    const streamed = join(dir, 'merged-streamed.beton');
    await mergeDatasets([a, b], streamed, { stream: target, parallelCopies: 4 });
    expect(target.assemble(streamed).equals(readFileSync(plain))).toBe(true);
  });

  it('fills holes with zeros and refuses a write behind what was streamed', async () => {
    const fh = await open(join(dir, 'holes.bin'), 'w+');
    const target = new Collect(16);
    const f = new StreamedFile(fh, target, 16);
    await f.write(new Uint8Array([1, 2]), 0, 2, 0);
    await f.write(new Uint8Array([3, 3, 3]), 0, 3, 20); // 16..19 are a hole
    await expect(f.write(new Uint8Array([9]), 0, 1, 18)).rejects.toThrow(/file order/);
    await f.truncate(40);
    f.markTail(30);
    await f.write(new Uint8Array([7, 7]), 0, 2, 30);
    await fh.close();
    expect([...Buffer.concat(target.chunks)]).toEqual([0, 0, 0, 0, 3, 3, 3]);
    const local = readFileSync(join(dir, 'holes.bin'));
    expect([...local.subarray(0, 2)]).toEqual([1, 2]);
    expect([...local.subarray(30, 32)]).toEqual([7, 7]);
    expect(local.length).toBe(40);
  });
});

describe('streamed part sizes', () => {
  it('10,000 parts from 16 MiB hold over 2 TB; every part but the last ≥ 5 MiB', () => {
    let total = 5 * 2 ** 20;
    for (let k = 2; k <= 10_000; k++) {
      const s = streamPartSize(k, 16 * 2 ** 20);
      expect(s).toBeGreaterThanOrEqual(5 * 2 ** 20);
      total += s;
    }
    expect(total).toBeGreaterThan(2e12);
    // The largest part stays within S3's 5 GiB.
    expect(streamPartSize(10_000, 16 * 2 ** 20)).toBeLessThanOrEqual(5 * 2 ** 30);
  });
});
