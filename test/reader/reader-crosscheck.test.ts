// Issue 12, item 8: wrong successes. A header whose num_fields was edited used to dump garbage
// with exit 0; the loader accepted image metadata that `beton dump` rejects. The Reader now
// cross-checks the field table, the record layout and the allocation table against each other
// (what FFCV always writes: zero name/argument padding, zero record padding, one table entry per
// heap object, owned by its sample and of the size the metadata implies, no overlaps, no pages
// when no object has a byte), and the loader's image decoders reject what the Reader rejects.
// Here one decoder per kind of edit (each Loader starts a worker); every decoder on every edit,
// and on the unedited files, is test/reader/reader-crosscheck-decoders.test.ts (slow tier).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BytesField } from '../../core/fields/bytes-field.js';
import { IntField } from '../../core/fields/int-field.js';
import { RGBImageField } from '../../core/fields/rgb-image-field.js';
import { Reader } from '../../core/reader/reader.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';
import { codeOf, DECODERS, loaderOutcome, metaAt, sizeEdits, variants, writeFixedJpegBeton } from '../helpers/edited-beton.js';
import { fixtureNames, fixturePath } from '../helpers/fixtures.js';
import { requires } from '../helpers/requires.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-xcheck-'));
const CLI = resolve(__dirname, '../../bin/beton.js');
const haveCli = requires('a built dist/', 'npm run build:ts', existsSync(resolve(__dirname, '../../dist/core/cli/main.js')));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const variant = variants(dir);
let n = 0;

const jpgFixed = join(dir, 'jpg-fixed.beton');
const mixed = join(dir, 'mixed.beton');
const ints = join(dir, 'ints.beton');

beforeAll(async () => {
  const img = (i: number, w: number, h: number): { data: Uint8Array; width: number; height: number } => {
    const data = new Uint8Array(w * h * 3);
    for (let p = 0; p < data.length; p++) data[p] = (p * 5 + i * 17) & 255;
    return { data, width: w, height: h };
  };
  const opts = { pageSize: 1 << 16, allowSmallPages: true, numWorkers: 0 };
  await writeFixedJpegBeton(jpgFixed);
  await new DatasetWriter(
    mixed,
    { image: new RGBImageField({ writeMode: 'proportion', compressProbability: 0.5 }), blob: new BytesField(), label: new IntField() },
    opts,
  ).write(Array.from({ length: 24 }, (_, i) => ({ image: img(i, 30 + i, 20 + (i % 5)), blob: new Uint8Array(10 + i).fill(i), label: i })));
  await new DatasetWriter(ints, { a: new IntField(), b: new IntField() }, opts).write(
    Array.from({ length: 50 }, (_, i) => ({ a: i, b: -i })),
  );
});

describe('Reader cross-checks (issue 12, item 8)', () => {
  it('every fixture and every write mode still opens and reads', async () => {
    for (const name of fixtureNames()) expect(await codeOf(fixturePath(name)), name).toBe('OK');
    for (const p of [jpgFixed, mixed, ints]) expect(await codeOf(p), p).toBe('OK');
  });

  it('an edited num_fields is rejected with a named error, for every fixture and value', async () => {
    const seen = new Map<string, number>();
    for (const name of fixtureNames()) {
      const nf = readFileSync(fixturePath(name)).readUInt16LE(2);
      for (const v of new Set([0, 1, 2, 3, 4, 5, 8, nf - 1, nf + 1, nf + 2, 255, 65535])) {
        if (v === nf || v < 0) continue;
        const code = await codeOf(variant(fixturePath(name), (b) => b.writeUInt16LE(v, 2)));
        expect(code, `${name} num_fields ${nf} -> ${v}`).not.toBe('OK');
        seen.set(code, (seen.get(code) ?? 0) + 1);
      }
    }
    // Before the cross-checks, bytes_json with num_fields 1 read 63 garbage samples.
    expect(await codeOf(variant(fixturePath('bytes_json'), (b) => b.writeUInt16LE(1, 2)))).toBe('BAD_ALLOC_TABLE');
    expect(
      [...seen.keys()].every((c) =>
        ['BAD_HEADER', 'BAD_FIELD', 'BAD_POINTER', 'BAD_ALLOC_TABLE', 'TRUNCATED', 'UNKNOWN_FIELD_TYPE', 'DUPLICATE_FIELD'].includes(c),
      ),
    ).toBe(true);
  });

  it('descriptor bytes FFCV always leaves zero: name tail and arguments', async () => {
    // bytes_json: field 0 "bytes"-ish name, field 1 JSON; both have all-zero arguments.
    const nameTail = variant(fixturePath('bytes_json'), (b) => (b[24 + 1 + 15] = 0x41));
    expect(await codeOf(nameTail)).toBe('BAD_FIELD');
    const args = variant(fixturePath('ints_floats'), (b) => (b[24 + 1041 + 17 + 500] = 1));
    expect(await codeOf(args)).toBe('BAD_FIELD');
    // NDArray: bytes after the dtype text.
    const nd = variant(fixturePath('ndarray'), (b) => (b[24 + 17 + 264 + 13 + 2] = 0x20));
    expect(await codeOf(nd)).toBe('BAD_FIELD');
  });

  it('non-zero record padding (an RGB image before an int leaves 3 bytes)', async () => {
    const r = await Reader.open(jpgFixed);
    const at = r.regions.metadata.offset + 5 * r.recordLayout.size + 14;
    r.close();
    expect(await codeOf(variant(jpgFixed, (b) => (b[at] = 7)))).toBe('BAD_HEADER');
  });

  it('allocation table: extra entries, a swapped owner, a changed size, an overlap', async () => {
    const r = await Reader.open(mixed);
    const T = r.header.allocTablePtr;
    r.close();
    // 24 zero bytes: a well-formed but extra entry (sample 0, ptr 0, size 0).
    const extra = join(dir, `edited${n++}.beton`);
    writeFileSync(extra, Buffer.concat([readFileSync(mixed), Buffer.alloc(24)]));
    expect(await codeOf(extra)).toBe('BAD_ALLOC_TABLE');
    // Entry 0's sample id moved to sample 1 (which then owns one object too many).
    expect(await codeOf(variant(mixed, (b) => b.writeBigUInt64LE(1n, T)))).toBe('BAD_ALLOC_TABLE');
    // Entries 0 and 3 (samples 0 and 1) trade owners: counts stay right, owners do not.
    expect(await codeOf(variant(mixed, (b) => (b.writeBigUInt64LE(1n, T), b.writeBigUInt64LE(0n, T + 3 * 24))))).toBe('BAD_POINTER');
    // The blob of sample 0 (entry 1) grows by a byte: metadata says 10.
    expect(await codeOf(variant(mixed, (b) => b.writeBigUInt64LE(b.readBigUInt64LE(T + 24 + 16) + 1n, T + 24 + 16)))).toMatch(
      /BAD_POINTER|BAD_ALLOC_TABLE/,
    );
  });

  it('metadata that contradicts the table: a bytes size, a raw image width', async () => {
    const blob = await metaAt(mixed, 3, 1);
    expect(await codeOf(variant(mixed, (b) => b.writeBigUInt64LE(b.readBigUInt64LE(blob + 8) - 1n, blob + 8)))).toBe('BAD_POINTER');
    const r = await Reader.open(mixed);
    const raw = Array.from({ length: r.numSamples }, (_, i) => i).find((i) => r.fieldMetadata(i, 0).getUint8(0) === 1)!;
    r.close();
    const im = await metaAt(mixed, raw, 0);
    expect(await codeOf(variant(mixed, (b) => b.writeUInt16LE(b.readUInt16LE(im + 1) + 1, im + 1)))).toBe('BAD_POINTER');
  });

  it('a file with no heap bytes has no pages: alloc_table_ptr moved to a page boundary is refused', async () => {
    const r = await Reader.open(ints);
    const { metadataEnd } = r.regions;
    r.close();
    const page = 1 << 16;
    const p = join(dir, `edited${n++}.beton`);
    const b = Buffer.concat([readFileSync(ints), Buffer.alloc(page - metadataEnd)]);
    b.writeBigUInt64LE(BigInt(page), 16);
    writeFileSync(p, b);
    expect(await codeOf(p)).toBe('BAD_HEADER');
  });

  it.skipIf(!haveCli)('beton dump of an edited num_fields: exit 1, a named error, no stack', () => {
    const p = variant(fixturePath('bytes_json'), (b) => b.writeUInt16LE(1, 2));
    const r = spawnSync(process.execPath, [CLI, 'dump', p], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toContain('BAD_ALLOC_TABLE');
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stdout).toBe('');
  });
});

describe('the loader rejects what the Reader rejects (issue 12, item 8)', () => {
  it('image mode 2 or 255: dump says CORRUPT_DATA, a decoder CORRUPT_SAMPLE naming the sample', async () => {
    const at = await metaAt(jpgFixed, 6, 0);
    const [two, ff] = [2, 255].map((mode) => variant(jpgFixed, (b) => (b[at] = mode)));
    expect(await codeOf(two!)).toBe('CORRUPT_DATA');
    expect(await codeOf(ff!)).toBe('CORRUPT_DATA');
    expect(await loaderOutcome(ff!, DECODERS.rrc)).toBe('CORRUPT_SAMPLE:6');
  });

  it('JPEG size contradicting the metadata: dump says CORRUPT_DATA, a decoder CORRUPT_SAMPLE', async () => {
    const { narrower, wider, taller } = await sizeEdits(jpgFixed, variant);
    for (const p of [narrower, wider, taller]) expect(await codeOf(p)).toBe('CORRUPT_DATA');
    expect(await loaderOutcome(narrower, DECODERS.simple)).toBe('CORRUPT_SAMPLE:0');
    expect(await loaderOutcome(taller, DECODERS.center)).toBe('CORRUPT_SAMPLE:9');
  });
});
