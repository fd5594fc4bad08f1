import type { PixelMapOptions } from '../pipeline/pixel-kernel.js';
import { loadNative } from './beton-addon.js';
import { callAddon } from './native-error.js';

/**
 * The fused per-pixel pass in C++ (mirror, per-channel table, HWC→CHW), writing
 * height*width*channels elements into `dst` (bytes of the output typed array).
 * The hot path of every image pipeline (a PixelMapKernel the loader hands to its fused
 * stages): arguments are re-checked by the addon, not here, to keep the call cheap.
 */
export function mapPixels(src: Uint8Array, dst: Uint8Array, lut: Uint8Array | null, o: PixelMapOptions): void {
  callAddon(() => loadNative().mapPixels(src, dst, lut, o.height, o.width, o.channels, o.elemBytes, o.flip, o.chw));
}
