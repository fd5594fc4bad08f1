import { BetonError } from '../../format/errors.js';

/**
 * Named error for traversal orders. Codes are stable (callers match on `code`, never on
 * message text), like BetonFormatError in core/format.
 */
export type OrderErrorCode =
  /** A context field (seed, epoch, batch size, rank, world size) is out of range. */
  | 'BAD_OPTIONS'
  /** `createOrder` was given a name it does not know. */
  | 'UNKNOWN_ORDER'
  /** quasi_random: a requested sample owns no heap data, so it belongs to no page. */
  | 'NO_HEAP_DATA'
  /** quasi_random: the same sample id appears twice in `indices`. */
  | 'DUPLICATE_INDEX'
  /** The requested size is beyond what the algorithm supports bit-exactly. */
  | 'TOO_LARGE';

export class OrderError extends BetonError<OrderErrorCode> {
  override readonly name: string = 'OrderError';
  constructor(
    code: OrderErrorCode,
    message: string,
    readonly details: { order?: string; sample?: number; epoch?: number } = {},
  ) {
    super(code, message);
  }
}
