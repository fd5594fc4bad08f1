/**
 * numpy's PCG64 bit generator (XSL-RR 128/64), bit-exact (loader-semantics §4.2 step 2).
 *
 * Why 16-bit limbs: the state is 128 bits and every step is a 128×128→128 multiply. BigInt
 * would be simple but allocates per step (too slow for million-element shuffles). With eight
 * 16-bit limbs each partial product is < 2^32 and a column of at most eight of them plus a
 * carry stays far below 2^53, so plain doubles compute it exactly with no allocation.
 */
import { seedSequenceU64x4, seedWords } from './seed-sequence.js';

const LIMBS = 8;
const MULTIPLIER = 0x2360ed051fc65da44385df649fccf645n;
const MASK128 = (1n << 128n) - 1n;

function toLimbs(v: bigint): Uint16Array {
  const out = new Uint16Array(LIMBS);
  let x = v & MASK128;
  for (let i = 0; i < LIMBS; i++) {
    out[i] = Number(x & 0xffffn);
    x >>= 16n;
  }
  return out;
}

const M = toLimbs(MULTIPLIER);
// Hoisted into locals: the hot loop reads them on every step.
const M0 = M[0] as number,
  M1 = M[1] as number,
  M2 = M[2] as number,
  M3 = M[3] as number;
const M4 = M[4] as number,
  M5 = M[5] as number,
  M6 = M[6] as number,
  M7 = M[7] as number;

export class Pcg64 {
  /** State limbs, least significant first. */
  private readonly s = new Uint16Array(LIMBS);
  /** Increment limbs (odd stream selector). */
  private readonly inc: Uint16Array;
  /** High half of the last 64-bit output, read by callers right after `next64Lo`. */
  private outHi = 0;
  /** numpy keeps the unused upper half of a 64-bit draw for the next 32-bit request. */
  private stash = 0;
  private hasStash = false;

  /** The whole state for a hand-over: state then increment limbs, and [hasStash, stash]. */
  exportState(): { limbs: Uint16Array; stash: Uint32Array } {
    const limbs = new Uint16Array(2 * LIMBS);
    limbs.set(this.s, 0);
    limbs.set(this.inc, LIMBS);
    return { limbs, stash: Uint32Array.of(this.hasStash ? 1 : 0, this.stash) };
  }

  /** Takes back a state advanced elsewhere (the increment never changes). */
  importState(st: { limbs: Uint16Array; stash: Uint32Array }): void {
    this.s.set(st.limbs.subarray(0, LIMBS));
    this.hasStash = st.stash[0] === 1;
    this.stash = st.stash[1]!;
  }

  /** Seeds like numpy's pcg64_set_seed: state = 0; step; state += initstate; step. */
  constructor(initState: bigint, initSeq: bigint) {
    this.inc = toLimbs((initSeq << 1n) | 1n);
    this.step();
    const add = toLimbs(initState);
    let carry = 0;
    for (let i = 0; i < LIMBS; i++) {
      const t = (this.s[i] as number) + (add[i] as number) + carry;
      this.s[i] = t & 0xffff;
      carry = t >>> 16;
    }
    this.step();
  }

  /** `numpy.random.PCG64(SeedSequence(seed))`, i.e. the generator behind `default_rng(seed)`. */
  static fromSeed(seed: number | bigint): Pcg64 {
    return Pcg64.fromEntropy(seedWords(seed));
  }

  /** `PCG64(SeedSequence(entropyWords))` for a list of 32-bit words. */
  static fromEntropy(entropy: readonly number[]): Pcg64 {
    const [s0, s1, s2, s3] = seedSequenceU64x4(entropy);
    return new Pcg64((s0 << 64n) | s1, (s2 << 64n) | s3);
  }

  /** state = state · M + inc (mod 2^128), schoolbook over 16-bit limbs. */
  private step(): void {
    const s = this.s;
    const c = this.inc;
    const s0 = s[0] as number,
      s1 = s[1] as number,
      s2 = s[2] as number,
      s3 = s[3] as number;
    const s4 = s[4] as number,
      s5 = s[5] as number,
      s6 = s[6] as number,
      s7 = s[7] as number;
    let t = s0 * M0 + (c[0] as number);
    s[0] = t & 0xffff;
    t = Math.floor(t / 65536) + s0 * M1 + s1 * M0 + (c[1] as number);
    s[1] = t & 0xffff;
    t = Math.floor(t / 65536) + s0 * M2 + s1 * M1 + s2 * M0 + (c[2] as number);
    s[2] = t & 0xffff;
    t = Math.floor(t / 65536) + s0 * M3 + s1 * M2 + s2 * M1 + s3 * M0 + (c[3] as number);
    s[3] = t & 0xffff;
    t = Math.floor(t / 65536) + s0 * M4 + s1 * M3 + s2 * M2 + s3 * M1 + s4 * M0 + (c[4] as number);
    s[4] = t & 0xffff;
    t = Math.floor(t / 65536) + s0 * M5 + s1 * M4 + s2 * M3 + s3 * M2 + s4 * M1 + s5 * M0 + (c[5] as number);
    s[5] = t & 0xffff;
    t = Math.floor(t / 65536) + s0 * M6 + s1 * M5 + s2 * M4 + s3 * M3 + s4 * M2 + s5 * M1 + s6 * M0 + (c[6] as number);
    s[6] = t & 0xffff;
    t = Math.floor(t / 65536) + s0 * M7 + s1 * M6 + s2 * M5 + s3 * M4 + s4 * M3 + s5 * M2 + s6 * M1 + s7 * M0 + (c[7] as number);
    s[7] = t & 0xffff;
  }

  /**
   * Advances and returns the low 32 bits of the next 64-bit output; the high 32 bits are
   * left in `lastHi`. (Two numbers instead of a BigInt keeps the hot path allocation-free.)
   */
  next64Lo(): number {
    this.step();
    const s = this.s;
    // Output: rotr64(hi64 XOR lo64, state >> 122).
    const xLo = (((s[1] as number) << 16) | (s[0] as number)) ^ (((s[5] as number) << 16) | (s[4] as number));
    const xHi = (((s[3] as number) << 16) | (s[2] as number)) ^ (((s[7] as number) << 16) | (s[6] as number));
    let rot = (s[7] as number) >>> 10;
    let lo = xLo,
      hi = xHi;
    if (rot >= 32) {
      lo = xHi;
      hi = xLo;
      rot -= 32;
    }
    if (rot !== 0) {
      const nLo = (lo >>> rot) | (hi << (32 - rot));
      hi = (hi >>> rot) | (lo << (32 - rot));
      lo = nLo;
    }
    this.outHi = hi >>> 0;
    return lo >>> 0;
  }

  /** High 32 bits of the output produced by the latest `next64Lo`. */
  get lastHi(): number {
    return this.outHi;
  }

  /** Next 64-bit output as a BigInt (convenient, not for hot loops). */
  nextUint64(): bigint {
    const lo = this.next64Lo();
    return (BigInt(this.outHi) << 32n) | BigInt(lo);
  }

  /** numpy's next_uint32: the low half of a fresh 64-bit draw, stashing the high half. */
  nextUint32(): number {
    if (this.hasStash) {
      this.hasStash = false;
      return this.stash;
    }
    const lo = this.next64Lo();
    this.stash = this.outHi;
    this.hasStash = true;
    return lo;
  }

  /**
   * Uniform integer in [0, max] by masked rejection, exactly numpy's random_interval:
   * 32-bit draws (with the stash) up to 0xFFFFFFFF, 64-bit draws above.
   */
  interval(max: number): number {
    if (max === 0) return 0;
    if (max <= 0xffffffff) {
      // Smallest 2^k − 1 ≥ max: all ones shifted right by max's leading zero count.
      const mask = 0xffffffff >>> Math.clz32(max);
      for (;;) {
        const v = (this.nextUint32() & mask) >>> 0;
        if (v <= max) return v;
      }
    }
    if (!Number.isSafeInteger(max)) throw new RangeError(`interval bound must be a safe integer, got ${max}`);
    const maxHi = Math.floor(max / 0x1_0000_0000);
    const maskHi = 0xffffffff >>> Math.clz32(maxHi);
    for (;;) {
      const lo = this.next64Lo();
      const v = ((this.outHi & maskHi) >>> 0) * 0x1_0000_0000 + lo;
      if (v <= max) return v;
    }
  }
}
