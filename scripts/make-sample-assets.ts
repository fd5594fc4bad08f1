/**
 * Regenerates assets/sample-images: the small ImageFolder the demo builds. Deterministic
 * (seeded), so re-running it reproduces the committed files. Run: npx tsx scripts/make-sample-assets.ts
 */
import { mkdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../assets/sample-images');
const classes = ['circles', 'gradients', 'stripes', 'squares'];
const perClass = 12;

let seed = 2024;
const rand = (): number => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;

function paint(kind: string, w: number, h: number): Uint8Array {
  const px = new Uint8Array(w * h * 3);
  const [r0, g0, b0] = [rand() * 255, rand() * 255, rand() * 255];
  const [r1, g1, b1] = [rand() * 255, rand() * 255, rand() * 255];
  const cx = rand() * w,
    cy = rand() * h,
    rad = (0.2 + rand() * 0.3) * Math.min(w, h),
    period = 6 + rand() * 20;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let t: number;
      if (kind === 'circles') t = Math.hypot(x - cx, y - cy) < rad ? 1 : 0.15 * Math.sin(x / 9);
      else if (kind === 'gradients') t = (x / w + y / h) / 2;
      else if (kind === 'stripes') t = Math.sin((x + y * 0.3) / period) > 0 ? 1 : 0;
      else t = Math.abs(x - cx) < rad && Math.abs(y - cy) < rad ? 1 : 0;
      const n = (rand() - 0.5) * 18;
      const i = (y * w + x) * 3;
      px[i] = Math.max(0, Math.min(255, r0 + (r1 - r0) * t + n));
      px[i + 1] = Math.max(0, Math.min(255, g0 + (g1 - g0) * t + n));
      px[i + 2] = Math.max(0, Math.min(255, b0 + (b1 - b0) * t + n));
    }
  }
  return px;
}

rmSync(root, { recursive: true, force: true });
for (const cls of classes) {
  mkdirSync(join(root, cls), { recursive: true });
  for (let k = 0; k < perClass; k++) {
    const w = 96 + Math.floor(rand() * 160);
    const h = 96 + Math.floor(rand() * 160);
    const img = sharp(Buffer.from(paint(cls, w, h)), { raw: { width: w, height: h, channels: 3 } });
    // Mostly JPEG, a few PNG: the demo shows both decode paths.
    if (k % 4 === 3) await img.png().toFile(join(root, cls, `${cls}_${String(k).padStart(2, '0')}.png`));
    else await img.jpeg({ quality: 90 }).toFile(join(root, cls, `${cls}_${String(k).padStart(2, '0')}.jpg`));
  }
}
console.log(`wrote ${classes.length * perClass} images to ${root}`);
