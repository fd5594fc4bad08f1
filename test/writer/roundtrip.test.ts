import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BytesField } from '../../core/fields/bytes-field.js';
import { FloatField } from '../../core/fields/float-field.js';
import { IntField } from '../../core/fields/int-field.js';
import { JSONField } from '../../core/fields/json-field.js';
import { NDArrayField, TorchTensorField, type NDArray } from '../../core/fields/ndarray-field.js';
import { RGBImageField, type DecodedImage } from '../../core/fields/rgb-image-field.js';
import { parseDType, writeElement } from '../../core/format/dtype.js';
import { BetonEncodeError } from '../../core/format/errors.js';
import { Reader } from '../../core/reader/reader.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-rt-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const tmp = (): string => join(dir, `t${n++}.beton`);

/** Seeded generator so failures replay. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

describe('round trip', () => {
  it('int and float, including int64 limits and special floats', async () => {
    const ints = [0n, 1n, -1n, 2n ** 63n - 1n, -(2n ** 63n), 123456789012345678n];
    const floats = [0, -0, 1.5, NaN, Infinity, -Infinity, 5e-324, Number.MAX_VALUE];
    const samples = floats.map((f, i) => ({ i: ints[i % ints.length]!, f }));
    const p = tmp();
    await new DatasetWriter(p, { i: new IntField(), f: new FloatField() }, { numWorkers: 0 }).write(samples);
    const r = await Reader.open(p);
    samples.forEach((s, k) => {
      const got = r.read(k);
      expect(got.i).toBe(s.i);
      expect(Object.is(got.f, s.f)).toBe(true);
    });
    r.close();
  });

  it.each(['|b1', '|i1', '|u1', '<i2', '<u2', '<i4', '<u4', '<i8', '<u8', '<f2', '<f4', '<f8', '<c8', '<c16', '>i4', '>f8'])(
    'ndarray dtype %s, shape (2, 3, 4)',
    async (dt) => {
      const d = parseDType(dt);
      const shape = [2, 3, 4];
      const rand = rng(dt.charCodeAt(1) * 7 + d.itemsize);
      const arrays: NDArray[] = Array.from({ length: 5 }, () => {
        const bytes = new Uint8Array(24 * d.itemsize);
        for (let i = 0; i < 24; i++) {
          const x =
            d.kind === 'b'
              ? rand() < 0.5
              : d.kind === 'f' || d.kind === 'c'
                ? (rand() - 0.5) * 100
                : Math.floor(rand() * 100) - (d.kind === 'i' ? 50 : 0);
          writeElement(d, bytes, i, d.itemsize === 8 && (d.kind === 'i' || d.kind === 'u') ? BigInt(Math.floor(Number(x))) : x);
        }
        return { dtype: d.str, shape, bytes };
      });
      const p = tmp();
      await new DatasetWriter(
        p,
        { a: new NDArrayField({ dtype: dt, shape }), t: new TorchTensorField({ dtype: dt, shape }) },
        { numWorkers: 0 },
      ).write(arrays.map((a) => ({ a, t: a })));
      const r = await Reader.open(p);
      expect(r.fields.map((f) => f.field.typeId)).toEqual([4, 6]);
      arrays.forEach((a, k) => {
        const got = r.read(k);
        expect((got.a as NDArray).bytes).toEqual(a.bytes);
        expect((got.a as NDArray).shape).toEqual(shape);
        expect((got.a as NDArray).dtype).toBe(d.str);
        expect((got.t as NDArray).bytes).toEqual(a.bytes);
      });
      r.close();
    },
  );

  it('accepts typed arrays and nested number arrays for ndarray fields', async () => {
    const p = tmp();
    const f = new NDArrayField({ dtype: 'float32', shape: [2, 2] });
    await new DatasetWriter(p, { x: f }, { numWorkers: 0 }).write([
      { x: new Float32Array([1, 2, 3, 4]) },
      {
        x: [
          [5, 6],
          [7, 8],
        ],
      },
    ]);
    const r = await Reader.open(p);
    expect(Array.from(new Float32Array((r.read(1).x as NDArray).bytes.buffer))).toEqual([5, 6, 7, 8]);
    r.close();
    expect(() => f.encode(new Float32Array(3))).toThrow(BetonEncodeError);
  });

  it('bytes (including empty) and unicode JSON across many small pages', async () => {
    const rand = rng(3);
    const samples = Array.from({ length: 200 }, (_, i) => ({
      b: i % 17 === 0 ? new Uint8Array(0) : Uint8Array.from({ length: Math.floor(rand() * 3000) }, () => Math.floor(rand() * 256)),
      j: { i, text: 'äöü ☃ 😀 é "quoted" \\ \n', nested: [1, 2.5, null, true, { k: 'v' }] },
    }));
    const p = tmp();
    const report = await new DatasetWriter(
      p,
      { b: new BytesField(), j: new JSONField() },
      { pageSize: 4096, allowSmallPages: true, numWorkers: 2, chunkSize: 7 },
    ).write(samples);
    expect(report.pages).toBeGreaterThan(50);
    const r = await Reader.open(p);
    samples.forEach((s, k) => {
      const got = r.read(k);
      expect(got.b).toEqual(s.b);
      expect(got.j).toEqual(s.j);
    });
    r.close();
  });

  it('field names of exactly 16 characters work; 17 are refused', async () => {
    const p = tmp();
    const name = 'abcdefghijklmnop';
    await new DatasetWriter(p, { [name]: new IntField() }, { numWorkers: 0 }).write([{ [name]: 5 }]);
    const r = await Reader.open(p);
    expect(r.fields[0]!.name).toBe(name);
    expect(r.read(0)[name]).toBe(5n);
    r.close();
    expect(() => new DatasetWriter(tmp(), { [name + 'q']: new IntField() })).toThrow(/at most 16/);
  });

  it('a sample larger than a page fails with a clear error and leaves no file', async () => {
    const p = tmp();
    const w = new DatasetWriter(p, { b: new BytesField(), c: new BytesField() }, { pageSize: 4096, allowSmallPages: true, numWorkers: 0 });
    await expect(w.write([{ b: new Uint8Array(3000), c: new Uint8Array(3000) }])).rejects.toThrow(/larger page size/);
    const { existsSync, readdirSync } = await import('node:fs');
    expect(existsSync(p)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });

  it('unknown-length sources (async generators) produce the same file', async () => {
    const samples = Array.from({ length: 50 }, (_, i) => ({ b: new Uint8Array(i * 100).fill(i), k: i }));
    const schema = { b: new BytesField(), k: new IntField() };
    const opts = { pageSize: 8192, allowSmallPages: true, numWorkers: 0 };
    const a = tmp();
    const b = tmp();
    await new DatasetWriter(a, schema, opts).write(samples);
    async function* gen(): AsyncGenerator<(typeof samples)[number]> {
      yield* samples;
    }
    await new DatasetWriter(b, schema, opts).write(gen());
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(b).equals(readFileSync(a))).toBe(true);
  });

  // The four sizes are four samples of one file: one encode worker start, not four.
  const SIZES = [
    [1, 1],
    [7, 300],
    [300, 7],
    [64, 48],
  ] as const;
  const pixels = (w: number, h: number): Uint8Array => {
    const data = new Uint8Array(w * h * 3);
    for (let i = 0; i < data.length; i++) data[i] = (i * 37) % 256;
    return data;
  };
  const grey = (w: number, h: number): { data: Uint8Array; width: number; height: number } => ({
    data: new Uint8Array(w * h * 3).fill(128),
    width: w,
    height: h,
  });
  const images = join(dir, 'images.beton');
  beforeAll(async () => {
    await new DatasetWriter(images, { raw: new RGBImageField(), jpg: new RGBImageField({ writeMode: 'jpg' }) }, { numWorkers: 1 }).write(
      SIZES.map(([w, h]) => ({ raw: { data: pixels(w, h), width: w, height: h }, jpg: grey(w, h) })),
    );
  });

  it.each(SIZES.map(([w, h], k) => [w, h, k]))('raw and jpg images of %ix%i', async (w, h, k) => {
    const r = await Reader.open(images);
    const s = r.read(k);
    const raw = s.raw as DecodedImage;
    const jpg = s.jpg as DecodedImage;
    expect([raw.mode, raw.width, raw.height]).toEqual(['raw', w, h]);
    expect(raw.data).toEqual(pixels(w, h));
    expect([jpg.mode, jpg.width, jpg.height]).toEqual(['jpg', w, h]);
    // Grey 128 survives a q90 JPEG round trip exactly with the fast IDCT (levels ≡ 1 mod 3
    // come back one lower; see docs/format-notes.md and test/native/native.test.ts).
    expect(jpg.data).toEqual(grey(w, h).data);
    r.close();
  });

  it('maxResolution shrinks with truncated sizes, never upscales', async () => {
    const mk = (w: number, h: number): { data: Uint8Array; width: number; height: number } => ({
      data: new Uint8Array(w * h * 3).fill(77),
      width: w,
      height: h,
    });
    const p = tmp();
    await new DatasetWriter(p, { im: new RGBImageField({ maxResolution: 128 }) }, { numWorkers: 0 }).write([
      { im: mk(300, 7) },
      { im: mk(201, 299) },
      { im: mk(50, 60) },
    ]);
    const r = await Reader.open(p);
    const dims = [0, 1, 2].map((i) => {
      const im = r.read(i).im as DecodedImage;
      return [im.width, im.height];
    });
    // trunc(128/300*300)=128, trunc(128/300*7)=2; trunc(128/299*201)=86
    expect(dims).toEqual([
      [128, 2],
      [86, 128],
      [50, 60],
    ]);
    r.close();
  });
});
