/**
 * float16 conversion, once for the whole code base (core/format/float16.ts), with numpy's
 * semantics: `np.float64(x).astype(np.float16)` rounds straight from the double, to nearest
 * even. A property test against numpy itself (python3) over random doubles, exact ties
 * between two float16 values (even and odd), the doubles just either side of a tie (where a
 * detour through float32 lands on the tie and rounds the other way), subnormals and their
 * ties, and the edges (65504, the overflow tie 65520, ±0, ±Inf, NaN). The same values go
 * through the '<f2' NDArray encoding (format/dtype.ts) and the torch-style cast
 * (float32 first, pipeline/dtypes.ts), each checked against numpy's own.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { parseDType, writeElement } from '../../core/format/dtype.js';
import { float16Bits, float16Value, toFloat16Bits } from '../../core/format/float16.js';
import { requires } from '../helpers/requires.js';

const PYTHON = process.env.BETON_FFCV_PYTHON ?? '/usr/bin/python3';
const HAVE_NUMPY = spawnSync(PYTHON, ['-c', 'import numpy'], { timeout: 60_000 }).status === 0;

/** xorshift32: the same values every run. */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 32;
  };
}

/** The double one ulp above (dir 1) or below (dir -1) a positive finite x. */
function nextDouble(x: number, dir: 1 | -1): number {
  const v = new DataView(new ArrayBuffer(8));
  v.setFloat64(0, x);
  v.setBigUint64(0, v.getBigUint64(0) + BigInt(dir));
  return v.getFloat64(0);
}

function cases(): number[] {
  const r = rng(23);
  const out = [0, -0, NaN, Infinity, -Infinity, 65504, 65519.99, 65520, 65536, 2 ** -24, 2 ** -25, 3 * 2 ** -25, 2 ** -14, 1 / 3];
  for (let i = 0; i < 2000; i++) out.push((r() < 0.5 ? -1 : 1) * 2 ** (Math.floor(r() * 48) - 30) * (1 + r()));
  for (let i = 0; i < 1500; i++) {
    // Two neighbouring finite float16 values (subnormals included) and the double halfway.
    const h = Math.floor(r() * 0x7bff);
    const tie = (float16Value(h) + float16Value(h + 1)) / 2;
    out.push(tie, nextDouble(tie, 1), nextDouble(tie, -1), -tie);
    // Past the tie by less than float32 can see: float32 rounds it onto the tie.
    out.push(tie * (1 + 2 ** -30));
  }
  return out;
}

const hex = (xs: readonly number[]): string => xs.map((x) => Buffer.from(new Float64Array([x]).buffer).toString('hex')).join('');

/** numpy's float16 bits for the doubles, straight and through float32. */
function numpyBits(xs: readonly number[]): { direct: number[]; viaFloat32: number[] } {
  const code = [
    'import sys, json, numpy as np',
    'a = np.frombuffer(bytes.fromhex(sys.stdin.read()), dtype="<f8")',
    'with np.errstate(all="ignore"):',
    '    d = a.astype(np.float16).view("<u2")',
    '    f = a.astype(np.float32).astype(np.float16).view("<u2")',
    'print(json.dumps({"direct": d.tolist(), "viaFloat32": f.tolist()}))',
  ].join('\n');
  const r = spawnSync('timeout', ['-k', '5', '120', PYTHON, '-c', code], { input: hex(xs), encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`numpy: ${r.stderr}`);
  return JSON.parse(r.stdout) as { direct: number[]; viaFloat32: number[] };
}

/** NaN's payload is numpy's business; any quiet NaN is a NaN. */
const canon = (bits: number): number => ((bits & 0x7c00) === 0x7c00 && bits & 0x3ff ? 0x7e00 : bits);

describe.skipIf(!requires('numpy', `${PYTHON} -c "import numpy" (pip install numpy)`, HAVE_NUMPY))('float16 as numpy converts', () => {
  const xs = cases();
  let np: { direct: number[]; viaFloat32: number[] };

  it('float16Bits equals numpy astype(float16) on every case, ties and subnormals included', () => {
    np = numpyBits(xs);
    const wrong = xs.flatMap((x, i) =>
      canon(float16Bits(x)) === canon(np.direct[i]!) ? [] : [`${x}: ${float16Bits(x)} vs ${np.direct[i]}`],
    );
    expect(wrong.slice(0, 10)).toEqual([]);
    // The detour through float32 really differs on some of these: the cases test the difference.
    expect(xs.some((_, i) => np.direct[i] !== np.viaFloat32[i])).toBe(true);
  });

  it("a '<f2' NDArray element is encoded as numpy stores it (not through float32)", () => {
    const d = parseDType('<f2');
    const bytes = new Uint8Array(2 * xs.length);
    xs.forEach((x, i) => writeElement(d, bytes, i, x));
    const stored = new Uint16Array(bytes.buffer);
    const wrong = xs.flatMap((x, i) => (canon(stored[i]!) === canon(np.direct[i]!) ? [] : [String(x)]));
    expect(wrong.slice(0, 10)).toEqual([]);
  });

  it('the torch-style cast (float32 first) equals numpy through float32', () => {
    const wrong = xs.flatMap((x, i) => (canon(toFloat16Bits(x)) === canon(np.viaFloat32[i]!) ? [] : [String(x)]));
    expect(wrong.slice(0, 10)).toEqual([]);
  });

  it('float16Value reads back every finite pattern exactly', () => {
    for (let h = 0; h < 0x7c00; h += 7) expect(float16Bits(float16Value(h))).toBe(h);
  });
});
