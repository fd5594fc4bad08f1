import { ORDER_NAMES } from '../api/order-names.js';
import { DECODER_SPEC } from '../profile/engines/bench-loader.js';
import { matching, oneOf } from './flags/parsers.js';

/**
 * The parsers of the loader settings that bench-loader, profile and export all take: one
 * place for what a decoder and an order may be, and so for their bad-value message.
 */

/** `--decoder simple|rrc:SIZE|center:SIZE`. */
export const decoderValue = matching(DECODER_SPEC, 'simple, rrc:SIZE or center:SIZE (SIZE a positive integer)');

/** `--order`: a traversal order of the contract's one list (did-you-mean for a near miss). */
export const orderValue = oneOf(ORDER_NAMES);

/** `--clip-decoder simple|rrc:SIZE` (video clips). */
export const clipDecoderValue = matching(/^(simple|rrc:[1-9]\d*)$/, 'simple or rrc:SIZE (SIZE a positive integer)');
