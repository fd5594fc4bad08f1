import { resizeAreaRGB } from '../native/index.js';

/**
 * Crop [y, y+h) × [x, x+w) of an RGB image and resize it to outW × outH into `dst`,
 * with OpenCV INTER_AREA semantics for shrinking (native, exact) and bilinear
 * interpolation when enlarging (FFCV's INTER_AREA enlargement is close to bilinear;
 * exactness there is not required, see loader-semantics §9).
 */
export function cropResizeRGB(src: Uint8Array, srcW: number, crop: { y: number; x: number; h: number; w: number }, dst: Uint8Array, outW: number, outH: number, scratch: { buf: Uint8Array }): void {
  const { y, x, h, w } = crop;
  const full = x === 0 && w === srcW;
  let region: Uint8Array;
  if (full) region = src.subarray(y * srcW * 3, (y + h) * srcW * 3);
  else {
    if (scratch.buf.byteLength < w * h * 3) scratch.buf = new Uint8Array(w * h * 3 * 2);
    region = scratch.buf.subarray(0, w * h * 3);
    for (let r = 0; r < h; r++) region.set(src.subarray(((y + r) * srcW + x) * 3, ((y + r) * srcW + x + w) * 3), r * w * 3);
  }
  if (w === outW && h === outH) {
    dst.set(region.subarray(0, w * h * 3));
    return;
  }
  if (w >= outW && h >= outH) {
    resizeAreaRGB(region, w, h, outW, outH, dst);
    return;
  }
  bilinear(region, w, h, dst, outW, outH);
}

function bilinear(src: Uint8Array, w: number, h: number, dst: Uint8Array, outW: number, outH: number): void {
  const sx = w / outW;
  const sy = h / outH;
  for (let oy = 0; oy < outH; oy++) {
    const fy = Math.min(h - 1, Math.max(0, (oy + 0.5) * sy - 0.5));
    const y0 = Math.floor(fy);
    const y1 = Math.min(h - 1, y0 + 1);
    const ty = fy - y0;
    for (let ox = 0; ox < outW; ox++) {
      const fx = Math.min(w - 1, Math.max(0, (ox + 0.5) * sx - 0.5));
      const x0 = Math.floor(fx);
      const x1 = Math.min(w - 1, x0 + 1);
      const tx = fx - x0;
      for (let c = 0; c < 3; c++) {
        const a = src[(y0 * w + x0) * 3 + c]! * (1 - tx) + src[(y0 * w + x1) * 3 + c]! * tx;
        const b = src[(y1 * w + x0) * 3 + c]! * (1 - tx) + src[(y1 * w + x1) * 3 + c]! * tx;
        dst[(oy * outW + ox) * 3 + c] = Math.round(a * (1 - ty) + b * ty);
      }
    }
  }
}
