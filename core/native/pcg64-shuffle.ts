import { argumentError } from './arguments.js';
import { loadNative } from './beton-addon.js';
import { callAddon } from './native-error.js';

/**
 * numpy's shuffle of values[start, end) with a PCG64 whose state is handed over as `limbs`
 * (state then increment, 16-bit, least significant first) and `stash` ([hasStash, value]);
 * both are updated to the advanced state. Bit-exact with core/loader/orders/pcg64.ts, which
 * core/loader/orders/numpy-random.ts falls back to without the addon.
 */
export function pcg64ShuffleU32(values: Uint32Array, start: number, end: number, limbs: Uint16Array, stash: Uint32Array): void {
  if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || start > end || end > values.length) {
    throw argumentError(`pcg64ShuffleU32: range ${start}..${end} is outside an array of ${values.length}`);
  }
  if (limbs.length !== 16 || stash.length !== 2) throw argumentError('pcg64ShuffleU32: limbs must hold 16 and stash 2 elements');
  callAddon(() => loadNative().pcg64ShuffleU32(values, start, end, limbs, stash));
}
