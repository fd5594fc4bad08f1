/**
 * The 32-bit Mersenne Twister MT19937 with the reference `init_genrand` seeding — the engine
 * behind a torch CPU generator after `manual_seed(s)` (which keeps only the low 32 bits).
 * Written from the published algorithm (Matsumoto & Nishimura 1998).
 */

const N = 624;
const M = 397;
const MATRIX_A = 0x9908b0df;
const UPPER_MASK = 0x80000000;
const LOWER_MASK = 0x7fffffff;

export class Mt19937 {
  private readonly mt = new Uint32Array(N);
  private index = N;

  /** `init_genrand(seed mod 2^32)`. */
  constructor(seed: number) {
    const mt = this.mt;
    mt[0] = seed >>> 0;
    for (let i = 1; i < N; i++) {
      const prev = mt[i - 1] as number;
      mt[i] = (Math.imul(1812433253, prev ^ (prev >>> 30)) + i) >>> 0;
    }
  }

  /** Regenerates all 624 words at once (the "twist"). */
  private twist(): void {
    const mt = this.mt;
    for (let i = 0; i < N; i++) {
      const y = ((mt[i] as number) & UPPER_MASK) | ((mt[(i + 1) % N] as number) & LOWER_MASK);
      mt[i] = ((mt[(i + M) % N] as number) ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0)) >>> 0;
    }
    this.index = 0;
  }

  /** Next tempered 32-bit output (`genrand_int32`). */
  nextUint32(): number {
    if (this.index >= N) this.twist();
    let y = this.mt[this.index++] as number;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }
}
