import { BetonError } from '../format/errors.js';

export type LoaderErrorCode = 'BAD_OPTIONS' | 'BAD_PIPELINE' | 'CORRUPT_SAMPLE' | 'WORKER_FAILED' | 'CLOSED';

/** Loader failures with stable codes; a decode failure names the sample. */
export class LoaderError extends BetonError<LoaderErrorCode> {
  override readonly name: string = 'LoaderError';
  constructor(
    code: LoaderErrorCode,
    message: string,
    readonly details: { sample?: number; batch?: number; field?: string } = {},
  ) {
    super(code, message);
  }
}
