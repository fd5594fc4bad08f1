import type { Rng } from './prng.js';

export type RGB = readonly [number, number, number];

/**
 * Photo-like synthetic content, cheap to draw in plain JS. What matters for a writer
 * benchmark is that the images cost what photos cost to decode, resize and re-encode:
 * flat colour compresses ~50x better than a photo and decodes faster, which would flatter
 * every number. So: smooth gradients and vignetting (low frequencies), hard-edged shaded
 * shapes with some stripe texture (edges and mid frequencies), and sensor-like noise
 * (high frequencies, mostly luma as in real cameras, because JPEG keeps luma at full
 * resolution and subsamples chroma), plus blotchy value-noise texture (mid frequencies).
 */

/** A per-class set of hues, so classes look different (a cue for loader demos, not needed for timing). */
export function classPalette(classIndex: number, numClasses: number, rng: Rng): RGB[] {
  const hue = (classIndex * 360) / Math.max(numClasses, 1);
  return Array.from({ length: 5 }, () => hslToRgb((hue + rng.range(-40, 40) + 360) % 360, rng.range(0.25, 0.85), rng.range(0.2, 0.8)));
}

export interface SynthOptions {
  /** Peak amplitude of the luma noise, in 8-bit levels. */
  noise?: number;
  /** Peak amplitude of the mid-frequency texture, in 8-bit levels. */
  texture?: number;
}

/** Draws one image: packed RGB, width·height·3 bytes. */
export function synthImage(width: number, height: number, palette: readonly RGB[], rng: Rng, options: SynthOptions = {}): Uint8Array {
  // Float working buffer: shapes alpha-blend over what is already there.
  const px = new Float32Array(width * height * 3);
  drawBackground(px, width, height, palette, rng);
  const shapes = rng.int(4, 12);
  for (let s = 0; s < shapes; s++) drawShape(px, width, height, pick(palette, rng), rng);
  addTexture(px, width, height, rng, options.texture ?? 30);
  return addNoiseAndQuantize(px, rng, options.noise ?? 8);
}

function drawBackground(px: Float32Array, w: number, h: number, palette: readonly RGB[], rng: Rng): void {
  const c0 = jitter(pick(palette, rng), rng);
  const c1 = jitter(pick(palette, rng), rng);
  const angle = rng.range(0, Math.PI * 2);
  const gx = Math.cos(angle) / Math.hypot(w, h);
  const gy = Math.sin(angle) / Math.hypot(w, h);
  // Vignette centred off-centre, like uneven lighting.
  const vx = rng.range(0.3, 0.7) * w;
  const vy = rng.range(0.3, 0.7) * h;
  const vStrength = rng.range(0.1, 0.45) / ((w * w + h * h) / 4);
  let i = 0;
  for (let y = 0; y < h; y++) {
    const dy = y - vy;
    for (let x = 0; x < w; x++) {
      const t = 0.5 + (x - w / 2) * gx + (y - h / 2) * gy;
      const dx = x - vx;
      const light = 1 - vStrength * (dx * dx + dy * dy);
      px[i] = (c0[0] + (c1[0] - c0[0]) * t) * light;
      px[i + 1] = (c0[1] + (c1[1] - c0[1]) * t) * light;
      px[i + 2] = (c0[2] + (c1[2] - c0[2]) * t) * light;
      i += 3;
    }
  }
}

function drawShape(px: Float32Array, w: number, h: number, base: RGB, rng: Rng): void {
  const color = jitter(base, rng);
  const side = Math.min(w, h);
  const a = rng.range(0.06, 0.35) * side;
  const b = rng.range(0.06, 0.35) * side;
  const cx = rng.range(0, w);
  const cy = rng.range(0, h);
  const rot = rng.range(0, Math.PI);
  const cos = Math.cos(rot);
  const sin = Math.sin(rot);
  const ellipse = rng.next() < 0.5;
  const alpha = rng.range(0.6, 1);
  const shading = rng.range(-0.35, 0.35);
  // A third of the shapes get stripes (fabric, fur, bark: the mid frequencies photos have).
  const stripeAmp = rng.next() < 0.33 ? rng.range(0.05, 0.2) : 0;
  const stripeFreq = rng.range(0.15, 0.8);
  const reach = Math.hypot(a, b);
  const x0 = Math.max(0, Math.floor(cx - reach));
  const x1 = Math.min(w - 1, Math.ceil(cx + reach));
  const y0 = Math.max(0, Math.floor(cy - reach));
  const y1 = Math.min(h - 1, Math.ceil(cy + reach));
  for (let y = y0; y <= y1; y++) {
    const dy = y - cy;
    let i = (y * w + x0) * 3;
    for (let x = x0; x <= x1; x++, i += 3) {
      const dx = x - cx;
      const u = (dx * cos + dy * sin) / a;
      const v = (dy * cos - dx * sin) / b;
      const r2 = u * u + v * v;
      if (ellipse ? r2 > 1 : Math.abs(u) > 1 || Math.abs(v) > 1) continue;
      let k = 1 + shading * u - (ellipse ? 0.25 * r2 : 0);
      if (stripeAmp !== 0) k *= 1 + stripeAmp * Math.sin(u * a * stripeFreq);
      px[i] = px[i]! * (1 - alpha) + color[0] * k * alpha;
      px[i + 1] = px[i + 1]! * (1 - alpha) + color[1] * k * alpha;
      px[i + 2] = px[i + 2]! * (1 - alpha) + color[2] * k * alpha;
    }
  }
}

/**
 * Value noise on a coarse grid, bilinearly interpolated: blotchy mid-frequency detail
 * (foliage, gravel, skin) that lands in the low AC coefficients of JPEG's 8x8 blocks,
 * where white noise alone would only fill the high ones.
 */
function addTexture(px: Float32Array, w: number, h: number, rng: Rng, amplitude: number): void {
  const cell = rng.int(2, 6);
  const gw = Math.ceil(w / cell) + 2;
  const gh = Math.ceil(h / cell) + 2;
  const grid = new Float32Array(gw * gh);
  for (let i = 0; i < grid.length; i++) grid[i] = (rng.next() * 2 - 1) * amplitude;
  let i = 0;
  for (let y = 0; y < h; y++) {
    const gy = y / cell;
    const y0 = Math.floor(gy);
    const fy = gy - y0;
    const row0 = y0 * gw;
    const row1 = row0 + gw;
    for (let x = 0; x < w; x++, i += 3) {
      const gx = x / cell;
      const x0 = Math.floor(gx);
      const fx = gx - x0;
      const top = grid[row0 + x0]! + (grid[row0 + x0 + 1]! - grid[row0 + x0]!) * fx;
      const bottom = grid[row1 + x0]! + (grid[row1 + x0 + 1]! - grid[row1 + x0]!) * fx;
      const t = top + (bottom - top) * fy;
      px[i] = px[i]! + t;
      px[i + 1] = px[i + 1]! + t;
      px[i + 2] = px[i + 2]! + t;
    }
  }
}

function addNoiseAndQuantize(px: Float32Array, rng: Rng, amplitude: number): Uint8Array {
  // Uint8ClampedArray rounds and clamps on store, which is exactly the quantization wanted.
  const out = new Uint8ClampedArray(px.length);
  // xorshift32 inline: one PRNG call per pixel, far cheaper than Rng.next() three times.
  let s = (Math.floor(rng.next() * 0xffffffff) | 1) >>> 0;
  const lumaScale = amplitude / 128;
  for (let i = 0; i < px.length; i += 3) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    // Sum of two bytes: a triangular distribution, closer to sensor noise than uniform.
    const luma = ((s & 0xff) + ((s >>> 8) & 0xff) - 255) * lumaScale;
    const chroma = (((s >>> 16) & 0xff) - 127.5) * (lumaScale / 4);
    out[i] = px[i]! + luma + chroma;
    out[i + 1] = px[i + 1]! + luma;
    out[i + 2] = px[i + 2]! + luma - chroma;
  }
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

function pick<T>(items: readonly T[], rng: Rng): T {
  return items[Math.floor(rng.next() * items.length)]!;
}

function jitter(c: RGB, rng: Rng): RGB {
  return [c[0] + rng.range(-20, 20), c[1] + rng.range(-20, 20), c[2] + rng.range(-20, 20)];
}

function hslToRgb(h: number, s: number, l: number): RGB {
  const c = (1 - Math.abs(2 * l - 1)) * s;
  const hp = h / 60;
  const x = c * (1 - Math.abs((hp % 2) - 1));
  const [r, g, b] = hp < 1 ? [c, x, 0] : hp < 2 ? [x, c, 0] : hp < 3 ? [0, c, x] : hp < 4 ? [0, x, c] : hp < 5 ? [x, 0, c] : [c, 0, x];
  const m = l - c / 2;
  return [(r + m) * 255, (g + m) * 255, (b + m) * 255];
}
