import type { Rng } from './rng.js';

/** A crop rectangle in source pixels: top row, left column, height, width. */
export interface Crop {
  y: number;
  x: number;
  h: number;
  w: number;
}

/** Python's round(): half to even (JS Math.round rounds .5 up). */
export function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** torchvision's / FFCV's RandomResizedCrop parameters (10 tries, then a clamped centre crop). */
export function randomResizedCrop(
  h: number,
  w: number,
  scale: readonly [number, number],
  ratio: readonly [number, number],
  rng: Rng,
): Crop {
  const area = h * w;
  const lr0 = Math.log(ratio[0]);
  const lr1 = Math.log(ratio[1]);
  for (let t = 0; t < 10; t++) {
    const target = area * rng.uniform(scale[0], scale[1]);
    const ar = Math.exp(rng.uniform(lr0, lr1));
    const cw = roundHalfEven(Math.sqrt(target * ar));
    const ch = roundHalfEven(Math.sqrt(target / ar));
    if (cw > 0 && cw <= w && ch > 0 && ch <= h) {
      const y = Math.trunc(rng.uniform(0, h - ch + 1));
      const x = Math.trunc(rng.uniform(0, w - cw + 1));
      return { y, x, h: ch, w: cw };
    }
  }
  const inRatio = w / h;
  const lo = Math.min(ratio[0], ratio[1]);
  const hi = Math.max(ratio[0], ratio[1]);
  let cw = w;
  let ch = h;
  // At least one pixel: a tiny image with an extreme ratio rounds to 0 here (FFCV then fails
  // in its resize); every crop FFCV can make is unchanged.
  if (inRatio < lo) ch = Math.max(1, roundHalfEven(cw / lo));
  else if (inRatio > hi) cw = Math.max(1, roundHalfEven(ch * hi));
  return { y: Math.floor((h - ch) / 2), x: Math.floor((w - cw) / 2), h: ch, w: cw };
}

/**
 * FFCV's centre crop: a square of trunc(ratio · min side), centred — at least one pixel:
 * FFCV's own fails (an empty crop) when ratio · min side < 1, e.g. on a 1×1 image at 224/256;
 * every crop FFCV can make is unchanged.
 */
export function centerCrop(h: number, w: number, ratio: number): Crop {
  const c = Math.max(1, Math.trunc(ratio * Math.min(h, w)));
  return { y: Math.floor((h - c) / 2), x: Math.floor((w - c) / 2), h: c, w: c };
}
