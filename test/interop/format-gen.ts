// Seeded generator of random .beton schemas and samples for the format round trip with the
// real FFCV (format-roundtrip.test.ts): every field type, every numpy dtype, every image
// write mode, odd sizes, within what FFCV's writer survives.
import { createHash } from 'node:crypto';
import { BytesField } from '../../core/fields/bytes-field.js';
import type { Field } from '../../core/fields/field.js';
import { FloatField } from '../../core/fields/float-field.js';
import type { RGBPixels } from '../../core/fields/image-codec.js';
import { IntField } from '../../core/fields/int-field.js';
import { JSONField } from '../../core/fields/json-field.js';
import { NDArrayField, TorchTensorField } from '../../core/fields/ndarray-field.js';
import { PyFloat, pythonJsonDumps } from '../../core/fields/python-json.js';
import { cappedSize, RGBImageField, type WriteMode } from '../../core/fields/rgb-image-field.js';
import { parseDType } from '../../core/format/dtype.js';
import { ndarrayValues } from '../../core/reader/canonical.js';
import type { Sample } from '../../core/writer/sample.js';

/** sfc32 seeded through splitmix32; one stream per schema, so schema k is the same whatever the count. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number, stream: number) {
    let s = (seed ^ Math.imul(stream + 1, 0x9e3779b9)) >>> 0;
    const next = (): number => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    for (let i = 0; i < 12; i++) this.u32();
  }

  u32(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0;
    this.c = (this.c + t) >>> 0;
    return t;
  }

  float(): number {
    return this.u32() / 4294967296;
  }

  /** Uniform integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.float() * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.float() * xs.length)]!;
  }

  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = this.u32() & 0xff;
    return out;
  }

  shuffle<T>(xs: T[]): T[] {
    for (let i = xs.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      [xs[i], xs[j]] = [xs[j]!, xs[i]!];
    }
    return xs;
  }
}

/** Every numpy numeric dtype FFCV's NDArrayField stores, both byte orders where they exist. */
export const NDARRAY_DTYPES = [
  '|b1',
  '|i1',
  '|u1',
  '<i2',
  '<u2',
  '<i4',
  '<u4',
  '<i8',
  '<u8',
  '<f2',
  '<f4',
  '<f8',
  '<c8',
  '<c16',
  '>i2',
  '>u2',
  '>i4',
  '>u8',
  '>f2',
  '>f4',
  '>f8',
  '>c8',
  '>c16',
] as const;
/** The torch dtypes with a numpy equivalent in FFCV's torch (1.13: no uint16/32/64, no big-endian). */
export const TORCH_DTYPES = ['|b1', '|u1', '|i1', '<i2', '<i4', '<i8', '<f2', '<f4', '<f8', '<c8', '<c16'] as const;
/**
 * What FFCV's Loader can deliver: its buffers are torch tensors (no uint16/32/64, no
 * big-endian: it raises) and its pipelines numba code (float16 fails to compile, in a
 * worker thread, and the Loader hangs). The files are fine: FFCV's Reader reads them all.
 */
export const LOADER_DTYPES = TORCH_DTYPES.filter((d) => d !== '<f2');
export const WRITE_MODES_ALL: readonly WriteMode[] = ['raw', 'jpg', 'smart', 'proportion'];

export type GenSpec =
  | { type: 'int' | 'float' | 'bytes' | 'json' }
  | { type: 'ndarray' | 'torch'; dtype: string; shape: number[] }
  | {
      type: 'rgb';
      writeMode: WriteMode;
      maxResolution: number | null;
      smartThreshold: number | null;
      jpegQuality: number;
      compressProbability: number;
    };

export interface JsonInput {
  /** What our writer gets: PyFloat for floats, bigint beyond 2^53, so it dumps as Python would. */
  value: unknown;
  /** pythonJsonDumps(value): what FFCV's writer json.loads (and should dump back identically). */
  text: string;
}

export type GenValue = bigint | number | Uint8Array | JsonInput | RGBPixels;

export interface GenField {
  name: string;
  spec: GenSpec;
}

export interface GenSchema {
  index: number;
  fields: GenField[];
  samples: GenValue[][];
  /** FFCV's writer: 2 MiB or more. */
  ffcvPageSize: number;
  /** Ours: any power of two ≥ 512 B that fits the largest sample; sometimes FFCV's, for the byte-identity check. */
  ourPageSize: number;
  numWorkers: number;
  chunkSize: number;
  /** numpy's global seed before FFCV writes ('proportion' draws from it). */
  npSeed: number;
  /** False for the zero-sample dataset, which FFCV's writer cannot make (shared memory of size 0). */
  ffcvWrites: boolean;
}

/** The coverage each run guarantees: schema k includes variant k mod |VARIANTS|. */
export const VARIANTS: readonly string[] = [
  'int',
  'float',
  'bytes',
  'json',
  ...WRITE_MODES_ALL.map((m) => `rgb:${m}`),
  ...NDARRAY_DTYPES.map((d) => `ndarray:${d}`),
  ...TORCH_DTYPES.map((d) => `torch:${d}`),
];

/** Kind first, so the 34 array variants do not crowd out the other fields. */
function randomVariant(rng: Rng): string {
  const kind = rng.pick(['int', 'float', 'bytes', 'json', 'rgb', 'ndarray', 'torch']);
  return rng.pick(VARIANTS.filter((v) => v === kind || v.startsWith(`${kind}:`)));
}

const MIB = 1 << 20;
const NAME_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_';
const NAME_ODD = ' -.:/#@!$%&*+=?~^|()[]{}<>,;\'"`\\';
const IMAGE_DIMS = [1, 2, 3, 5, 7, 8, 9, 13, 16, 17, 31, 32, 33, 61, 64, 67, 97, 127, 251];
const MAX_PIXELS = 12_000;

function fieldName(rng: Rng, taken: Set<string>): string {
  for (;;) {
    const len = rng.chance(0.25) ? 16 : rng.int(1, 16);
    let s = '';
    for (let i = 0; i < len; i++) {
      const r = rng.float();
      if (r < 0.85) s += rng.pick([...NAME_CHARS]);
      else if (r < 0.98) s += rng.pick([...NAME_ODD]);
      else s += String.fromCharCode(rng.pick([1, 9, 10, 27, 31, 127]));
    }
    if (!taken.has(s)) {
      taken.add(s);
      return s;
    }
  }
}

function shapeFor(rng: Rng): number[] {
  const r = rng.float();
  if (r < 0.15) return [1];
  if (r < 0.22) return Array.from({ length: rng.int(2, 5) }, () => 1);
  if (r < 0.27) return Array.from({ length: 32 }, () => (rng.chance(0.1) ? 2 : 1)); // numpy's maximum rank
  if (r < 0.35) return [rng.int(100, 1500)];
  const rank = rng.int(1, 4);
  for (;;) {
    const shape = Array.from({ length: rank }, () => rng.pick([1, 2, 3, 4, 5, 7, 8, 11, 16]));
    if (shape.reduce((a, b) => a * b, 1) <= 600) return shape;
  }
}

function specFor(rng: Rng, variant: string): GenSpec {
  const [kind, arg] = variant.split(':') as [string, string | undefined];
  switch (kind) {
    case 'int':
    case 'float':
    case 'bytes':
    case 'json':
      return { type: kind };
    case 'ndarray':
    case 'torch':
      return { type: kind, dtype: arg!, shape: shapeFor(rng) };
    case 'rgb':
      return {
        type: 'rgb',
        writeMode: arg as WriteMode,
        maxResolution: rng.chance(0.4) ? rng.pick([1, 2, 3, 5, 8, 16, 31, 50, 64, 100]) : null,
        smartThreshold: rng.chance(0.2) ? null : rng.pick([0, 3, 100, 768, 3000, 20_000, rng.int(0, 40_000)]),
        jpegQuality: rng.chance(0.5) ? rng.pick([1, 2, 50, 75, 90, 95, 99, 100]) : rng.int(1, 100),
        compressProbability: rng.pick([0, 0.25, 0.5, 0.9, 1]),
      };
    default:
      throw new Error(`unknown variant ${variant}`);
  }
}

const SPECIAL_INTS = [
  0n,
  1n,
  -1n,
  127n,
  -128n,
  255n,
  256n,
  2n ** 31n - 1n,
  -(2n ** 31n),
  2n ** 32n,
  2n ** 53n,
  2n ** 53n + 1n,
  -(2n ** 53n) - 1n,
  2n ** 63n - 1n,
  -(2n ** 63n),
];

function int64(rng: Rng): bigint {
  const r = rng.float();
  if (r < 0.3) return rng.pick(SPECIAL_INTS);
  if (r < 0.6) return BigInt(rng.int(-1000, 1000));
  return BigInt.asIntN(64, (BigInt(rng.u32()) << 32n) | BigInt(rng.u32()));
}

const SPECIAL_FLOATS = [
  0,
  -0,
  1,
  -1,
  0.1,
  0.5,
  1 / 3,
  2 / 3,
  1e16,
  1e15,
  123456789012345680000,
  1e21,
  1e22,
  1e-4,
  1e-5,
  5e-324,
  -5e-324,
  2.2250738585072014e-308,
  1.7976931348623157e308,
  -1.7976931348623157e308,
  2 ** 53,
  2 ** 53 + 2,
  9.999999999999999e15,
  0.30000000000000004,
  100,
  1e100,
  Infinity,
  -Infinity,
  NaN,
];

function float64(rng: Rng, finite = false): number {
  const r = rng.float();
  let x: number;
  if (r < 0.35) x = rng.pick(SPECIAL_FLOATS);
  else if (r < 0.6) x = rng.int(-1_000_000, 1_000_000) / rng.pick([1, 10, 100, 1000, 7, 3]);
  else {
    const v = new DataView(new ArrayBuffer(8));
    v.setUint32(0, rng.u32());
    v.setUint32(4, rng.u32());
    x = v.getFloat64(0);
  }
  // Random bit patterns may be NaNs with payloads, which a JS number need not keep.
  if (Number.isNaN(x) && !(r < 0.35)) return float64(rng, finite);
  if (finite && !Number.isFinite(x)) return float64(rng, finite);
  return x;
}

function jsonString(rng: Rng): string {
  const len = rng.pick([0, 1, 2, 5, 10, 30]);
  let s = '';
  for (let i = 0; i < len; i++) {
    const r = rng.float();
    if (r < 0.55) s += String.fromCharCode(rng.int(0x20, 0x7e));
    else if (r < 0.62) s += String.fromCharCode(rng.pick([0, 1, 8, 9, 10, 12, 13, 27, 31, 0x7f]));
    else if (r < 0.67) s += rng.pick(['"', '\\', '/']);
    else if (r < 0.82) s += String.fromCharCode(rng.pick([rng.int(0x80, 0x7ff), rng.int(0x800, 0xd7ff), rng.int(0xe000, 0xfffd)]));
    else if (r < 0.97) s += String.fromCodePoint(rng.int(0x10000, 0x10ffff));
    else s += String.fromCharCode(rng.int(0xd800, 0xdfff)); // a lone surrogate: Python's json takes those too
  }
  return s;
}

function jsonValue(rng: Rng, depth: number): unknown {
  const r = rng.float();
  if (depth < 3 && r < 0.25) {
    const n = rng.pick([0, 1, 2, 3, 5]);
    const entries: Array<[string, unknown]> = [];
    const keys = new Set<string>();
    for (let i = 0; i < n; i++) {
      const k = rng.chance(0.15) ? rng.pick(['0', '7', '12', '-1', '__proto__', 'constructor', '']) : jsonString(rng);
      if (keys.has(k)) continue;
      keys.add(k);
      entries.push([k, jsonValue(rng, depth + 1)]);
    }
    // fromEntries defines own properties, so even "__proto__" is a key, as in a Python dict.
    return Object.fromEntries(entries);
  }
  if (depth < 3 && r < 0.45) return Array.from({ length: rng.pick([0, 1, 2, 4]) }, () => jsonValue(rng, depth + 1));
  if (r < 0.5) return null;
  if (r < 0.55) return rng.chance(0.5);
  if (r < 0.7) {
    const i = rng.chance(0.3) ? int64(rng) * BigInt(rng.pick([1, 1, 1000003])) : BigInt(rng.int(-100_000, 100_000));
    return i >= -(2n ** 53n) && i <= 2n ** 53n ? Number(i) : i;
  }
  if (r < 0.85) return new PyFloat(float64(rng));
  return jsonString(rng);
}

function pixels(rng: Rng, width: number, height: number): RGBPixels {
  const data = new Uint8Array(width * height * 3);
  const pattern = rng.pick(['noise', 'gradient', 'flat', 'checker', 'stripes']);
  const base = [rng.int(0, 255), rng.int(0, 255), rng.int(0, 255)];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      for (let c = 0; c < 3; c++) {
        let v: number;
        switch (pattern) {
          case 'noise':
            v = rng.int(0, 255);
            break;
          case 'gradient':
            v = (base[c]! + x * 7 + y * 3 * (c + 1)) & 0xff;
            break;
          case 'flat':
            v = base[c]!;
            break;
          case 'checker':
            v = ((x >> 1) + (y >> 1)) & 1 ? base[c]! : 255 - base[c]!;
            break;
          default:
            v = x % 3 === c ? 255 : base[c]! >> 2;
        }
        data[(y * width + x) * 3 + c] = v;
      }
    }
  }
  return { width, height, data };
}

/** An image FFCV's writer survives: its max_resolution shrink must leave both sides ≥ 1 px. */
function image(rng: Rng, maxResolution: number | null): RGBPixels {
  for (let tries = 0; ; tries++) {
    const w = rng.pick(IMAGE_DIMS);
    const h = rng.pick(IMAGE_DIMS);
    if (w * h > MAX_PIXELS) continue;
    const [cw, ch] = cappedSize(w, h, maxResolution);
    if (cw >= 1 && ch >= 1) return pixels(rng, w, h);
    if (tries > 50) return pixels(rng, w, w);
  }
}

function value(rng: Rng, spec: GenSpec): GenValue {
  switch (spec.type) {
    case 'int':
      return int64(rng);
    case 'float':
      return float64(rng);
    case 'bytes': {
      const r = rng.float();
      return rng.bytes(r < 0.3 ? 0 : r < 0.6 ? rng.int(1, 16) : r < 0.95 ? rng.int(17, 300) : rng.int(1000, 5000));
    }
    case 'json': {
      const v = jsonValue(rng, 0);
      return { value: v, text: pythonJsonDumps(v) };
    }
    case 'ndarray':
    case 'torch': {
      const d = parseDType(spec.dtype);
      const n = spec.shape.reduce((a, b) => a * b, 1);
      if (d.kind === 'b') return Uint8Array.from({ length: n }, () => (rng.chance(0.5) ? 1 : 0));
      return rng.bytes(n * d.itemsize);
    }
    case 'rgb':
      return image(rng, spec.maxResolution);
  }
}

/** Upper bound of a heap object, to pick page sizes the largest sample fits in. */
function heapBound(spec: GenSpec, v: GenValue): number {
  switch (spec.type) {
    case 'int':
    case 'float':
      return 0;
    case 'bytes':
    case 'ndarray':
    case 'torch':
      return (v as Uint8Array).byteLength;
    case 'json':
      return (v as JsonInput).text.length + 1;
    case 'rgb': {
      const px = v as RGBPixels;
      const [w, h] = cappedSize(px.width, px.height, spec.maxResolution);
      // A JPEG: ≤ 6 blocks of ≤ 160 coded bytes per 16x16 MCU, plus headers.
      const jpeg = Math.ceil(w / 16) * Math.ceil(h / 16) * 6 * 160 + 2048;
      return Math.max(w * h * 3, jpeg);
    }
  }
}

/** A JSON value holding what trips JS-side JSON handling up, so every run meets it. */
const EDGE_JSON = Object.fromEntries<unknown>([
  ['__proto__', { x: [1, new PyFloat(1)] }],
  ['7', new PyFloat(-0)],
  [
    'b',
    [
      new PyFloat(NaN),
      new PyFloat(Infinity),
      new PyFloat(-Infinity),
      new PyFloat(1e16),
      new PyFloat(1e-5),
      new PyFloat(5e-324),
      2n ** 64n,
      -(2n ** 70n),
      2 ** 53,
    ],
  ],
  ['\ud800', '\u0000\u001f\u007f\u00e9\u4e2d\ud83d\ude00\udfff"\\/'],
  ['', null],
  ['constructor', true],
]);

/**
 * Edge values for the first samples of a schema's guaranteed variant: the extremes a random
 * draw may miss (int64 limits, NaN and -0.0, an empty object first on its page — FFCV's
 * page −1 pointer — the JSON above, a 1-pixel-wide image, prime sizes).
 */
function edgeValue(rng: Rng, spec: GenSpec, i: number): GenValue | null {
  switch (spec.type) {
    case 'int':
      return [-(2n ** 63n), 2n ** 63n - 1n][i] ?? null;
    case 'float':
      return [NaN, -0, 5e-324][i] ?? null;
    case 'bytes':
      return i < 2 ? new Uint8Array(0) : null;
    case 'json':
      return i === 0 ? { value: EDGE_JSON, text: pythonJsonDumps(EDGE_JSON) } : null;
    case 'rgb': {
      const dims: Array<[number, number]> = [
        [1, spec.maxResolution ? Math.min(spec.maxResolution, 251) : 251],
        [67, 31],
        [13, 1],
      ];
      const d = dims[i];
      if (!d) return null;
      const [cw, ch] = cappedSize(d[0], d[1], spec.maxResolution);
      return cw >= 1 && ch >= 1 ? pixels(rng, d[0], d[1]) : null;
    }
    default:
      return null;
  }
}

export function generateSchema(seed: number, index: number): GenSchema {
  const rng = new Rng(seed, index);
  const taken = new Set<string>();
  const forced = VARIANTS[index % VARIANTS.length]!;
  const variants = [forced];
  const extra = rng.pick([0, 1, 2, 2, 3, 4, 5]);
  for (let i = 0; i < extra; i++) variants.push(randomVariant(rng));
  rng.shuffle(variants);
  const fields = variants.map((v) => ({ name: fieldName(rng, taken), spec: specFor(rng, v) }));
  const forcedField = variants.indexOf(forced);
  const hasImage = fields.some((f) => f.spec.type === 'rgb');
  const n = hasImage ? rng.pick([1, 2, 3, 5, 8, 12]) : rng.pick([1, 2, 3, 5, 8, 13, 21, 40]);
  const samples = Array.from({ length: n }, (_, i) =>
    fields.map((f, k) => (k === forcedField ? edgeValue(rng, f.spec, i) : null) ?? value(rng, f.spec)),
  );
  const biggest = Math.max(0, ...samples.map((s) => s.reduce((a: number, v, f) => a + heapBound(fields[f]!.spec, v), 0)));
  const ffcvPageSize = rng.pick([2 * MIB, 2 * MIB, 2 * MIB, 4 * MIB, 8 * MIB]);
  const minLog = Math.max(9, Math.ceil(Math.log2(Math.max(biggest, 1))));
  const ourPageSize = rng.chance(0.35) ? ffcvPageSize : 2 ** rng.int(minLog, Math.max(minLog, 23));
  return {
    index,
    fields,
    samples,
    ffcvPageSize,
    ourPageSize,
    numWorkers: rng.pick([0, 0, 0, 0, 1, 2]),
    chunkSize: rng.pick([1, 3, 7, 100]),
    npSeed: rng.u32() & 0x7fffffff,
    ffcvWrites: true,
  };
}

/**
 * A dataset FFCV's Loader decodes with its stock decoders: every field type and write mode
 * (arrays of the dtypes and ranks it can deliver),
 * images of one size per field (SimpleRGBImageDecoder's rule), and no empty bytes (the
 * object after one is misread by FFCV's size lookup, spec §7.3). Page size: FFCV's minimum
 * when `smallPages` is false, else the smallest that fits a sample (many pages per file).
 */
export function loaderSchema(seed: number, index: number, smallPages: boolean): GenSchema {
  const rng = new Rng(seed, index);
  const taken = new Set<string>();
  const variants = [
    'int',
    'float',
    'bytes',
    'json',
    `ndarray:${rng.pick(LOADER_DTYPES)}`,
    `torch:${rng.pick(LOADER_DTYPES)}`,
    ...WRITE_MODES_ALL.map((m) => `rgb:${m}`),
  ];
  const fields = rng.shuffle(variants).map((v) => {
    let spec = specFor(rng, v);
    // The Loader's batch dimension would make a rank-32 array rank 33, beyond numpy's limit.
    while ((spec.type === 'ndarray' || spec.type === 'torch') && spec.shape.length > 31) spec = specFor(rng, v);
    return { name: fieldName(rng, taken), spec };
  });
  const sizes = fields.map(({ spec }) => {
    for (;;) {
      const w = rng.pick(IMAGE_DIMS);
      const h = rng.pick(IMAGE_DIMS);
      const [cw, ch] = cappedSize(w, h, spec.type === 'rgb' ? spec.maxResolution : null);
      if (w * h <= 4000 && cw >= 1 && ch >= 1) return [w, h] as const;
    }
  });
  const samples = Array.from({ length: 7 }, () =>
    fields.map(({ spec }, f) =>
      spec.type === 'bytes' ? rng.bytes(rng.int(1, 300)) : spec.type === 'rgb' ? pixels(rng, sizes[f]![0], sizes[f]![1]) : value(rng, spec),
    ),
  );
  const biggest = Math.max(...samples.map((s) => s.reduce((a: number, v, f) => a + heapBound(fields[f]!.spec, v), 0)));
  return {
    index,
    fields,
    samples,
    ffcvPageSize: 2 * MIB,
    ourPageSize: smallPages ? 2 ** Math.max(9, Math.ceil(Math.log2(biggest))) : 2 * MIB,
    numWorkers: 0,
    chunkSize: 100,
    npSeed: rng.u32() & 0x7fffffff,
    ffcvWrites: false,
  };
}

/** A dataset with no samples: our writer makes one, FFCV's reader must open it. */
export function emptySchema(seed: number, index: number): GenSchema {
  const s = generateSchema(seed, index);
  return { ...s, samples: [], ffcvWrites: false, ourPageSize: 2 ** new Rng(seed, index + 1e6).int(9, 23) };
}

export function ourField(spec: GenSpec): Field {
  switch (spec.type) {
    case 'int':
      return new IntField();
    case 'float':
      return new FloatField();
    case 'bytes':
      return new BytesField();
    case 'json':
      return new JSONField();
    case 'ndarray':
      return new NDArrayField({ dtype: spec.dtype, shape: spec.shape });
    case 'torch':
      return new TorchTensorField({ dtype: spec.dtype, shape: spec.shape });
    case 'rgb':
      return new RGBImageField({
        writeMode: spec.writeMode,
        maxResolution: spec.maxResolution,
        smartThreshold: spec.smartThreshold,
        jpegQuality: spec.jpegQuality,
        compressProbability: spec.compressProbability,
      });
  }
}

/** A sample as our DatasetWriter takes it (a tuple in field order). */
export function ourSample(s: GenSchema, values: GenValue[]): Sample {
  return values.map((v, f) => {
    const spec = s.fields[f]!.spec;
    if (spec.type === 'json') return (v as JsonInput).value;
    if (spec.type === 'ndarray' || spec.type === 'torch') return { dtype: spec.dtype, shape: spec.shape, bytes: v as Uint8Array };
    return v;
  });
}

const b64 = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64');

export function f64Bits(x: number): string {
  const v = new DataView(new ArrayBuffer(8));
  v.setFloat64(0, x);
  return v.getBigUint64(0).toString(16).padStart(16, '0');
}

/** The job entry format_roundtrip.py writes with FFCV. */
export function pythonWriteJob(s: GenSchema, path: string): unknown {
  return {
    path,
    page_size: s.ffcvPageSize,
    np_seed: s.npSeed,
    fields: s.fields.map(({ name, spec }) => {
      if (spec.type === 'rgb') {
        return {
          name,
          type: 'rgb',
          write_mode: spec.writeMode,
          max_resolution: spec.maxResolution,
          smart_threshold: spec.smartThreshold,
          jpeg_quality: spec.jpegQuality,
          compress_probability: spec.compressProbability,
        };
      }
      return { name, ...spec };
    }),
    samples: s.samples.map((values) =>
      values.map((v, f) => {
        const spec = s.fields[f]!.spec;
        switch (spec.type) {
          case 'int':
            return (v as bigint).toString();
          case 'float':
            return f64Bits(v as number);
          case 'json':
            return (v as JsonInput).text;
          case 'rgb': {
            const px = v as RGBPixels;
            return [px.width, px.height, b64(px.data)];
          }
          default:
            return b64(v as Uint8Array);
        }
      }),
    ),
  };
}

const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

/** JSON values as our canonical dump prints them (numbers, NaN/Infinity as strings). */
function plainJson(v: unknown): unknown {
  if (v instanceof PyFloat) return Number.isFinite(v.value) ? v.value : String(v.value);
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) return v.map(plainJson);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plainJson(x)]));
  return v;
}

/**
 * What a correct reader must return for an input value, in the canonical encoding, or, for
 * images whose stored form depends on the encoder or a random draw, the keys that are
 * certain (size, and mode and pixels where no JPEG or resize is involved).
 */
export function expectedCanonical(spec: GenSpec, v: GenValue): Record<string, unknown> | string {
  switch (spec.type) {
    case 'int':
      return (v as bigint).toString();
    case 'float':
      return { f64_bits: f64Bits(v as number) };
    case 'bytes': {
      const b = v as Uint8Array;
      return { size: b.byteLength, sha256: sha256(b), head_hex: Buffer.from(b.subarray(0, 32)).toString('hex') };
    }
    case 'json': {
      const { value: jv, text } = v as JsonInput;
      const stored = Buffer.from(`${text}\0`, 'latin1');
      return { value: plainJson(jv), size: stored.byteLength, sha256: sha256(stored) };
    }
    case 'ndarray':
    case 'torch': {
      const dtype = parseDType(spec.dtype).str;
      const a = { dtype, shape: spec.shape, bytes: v as Uint8Array };
      return { dtype, shape: spec.shape, sha256: sha256(a.bytes), values: ndarrayValues(a) };
    }
    case 'rgb': {
      const px = v as RGBPixels;
      const [width, height] = cappedSize(px.width, px.height, spec.maxResolution);
      const out: Record<string, unknown> = { width, height };
      const mode =
        spec.writeMode === 'raw'
          ? 'raw'
          : spec.writeMode === 'jpg'
            ? 'jpg'
            : spec.writeMode === 'smart'
              ? spec.smartThreshold !== null && width * height * 3 > spec.smartThreshold
                ? 'jpg'
                : 'raw'
              : spec.compressProbability === 0
                ? 'raw'
                : spec.compressProbability === 1
                  ? 'jpg'
                  : null;
      if (mode) out.mode = mode;
      if (mode === 'raw' && width === px.width && height === px.height) {
        Object.assign(out, { sha256: sha256(px.data), stored_size: px.data.byteLength, stored_sha256: sha256(px.data) });
      }
      return out;
    }
  }
}

/** One line describing a schema, for failure messages. */
export function describeSchema(s: GenSchema): string {
  const f = s.fields.map(({ name, spec }) => {
    const rest =
      spec.type === 'ndarray' || spec.type === 'torch'
        ? `${spec.dtype}[${spec.shape.join(',')}]`
        : spec.type === 'rgb'
          ? `${spec.writeMode},maxres=${spec.maxResolution},smart=${spec.smartThreshold},q=${spec.jpegQuality},p=${spec.compressProbability}`
          : '';
    return `${JSON.stringify(name)}:${spec.type}${rest ? `(${rest})` : ''}`;
  });
  return `schema ${s.index}: ${s.samples.length} samples, pages ffcv=${s.ffcvPageSize} ours=${s.ourPageSize}, workers=${s.numWorkers}; ${f.join(' ')}`;
}
