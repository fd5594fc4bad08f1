import { argumentError } from './arguments.js';
import { loadNative } from './beton-addon.js';
import { callAddon } from './native-error.js';

/**
 * Copies `width` bytes at ids[k]·stride + offset of `src` (a metadata table) to row k of
 * `dst` from `dstStart`: a tabular loader's whole per-sample work, one call per batch.
 */
export function gatherRecords(
  src: Uint8Array,
  stride: number,
  offset: number,
  width: number,
  ids: Uint32Array,
  dst: Uint8Array,
  dstStart: number,
): void {
  if (![stride, offset, width, dstStart].every((v) => Number.isInteger(v) && v >= 0) || offset + width > stride) {
    throw argumentError(`gatherRecords: bad layout (stride ${stride}, offset ${offset}, width ${width}, dstStart ${dstStart})`);
  }
  callAddon(() => loadNative().gatherRecords(src, stride, offset, width, ids, dst, dstStart));
}
