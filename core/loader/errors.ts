import { BetonError } from '../format/errors.js';

export type LoaderErrorCode =
  | 'BAD_OPTIONS'
  | 'BAD_PIPELINE'
  | 'CORRUPT_SAMPLE'
  | 'WORKER_FAILED'
  | 'CLOSED'
  /** resume(state) with a state saved by another loader (file, batch size, order, seed, samples). */
  | 'FOREIGN_STATE'
  /** The process cache's page pool could not be allocated (the message names its size). */
  | 'OUT_OF_MEMORY';

/** Loader failures with stable codes; a decode failure names the sample. */
export class LoaderError extends BetonError<LoaderErrorCode> {
  override readonly name: string = 'LoaderError';
  constructor(
    code: LoaderErrorCode,
    message: string,
    readonly details: { sample?: number; batch?: number; field?: string } = {},
    cause?: unknown,
  ) {
    super(code, message, cause === undefined ? {} : { cause });
  }
}
