export type LoaderErrorCode = 'BAD_OPTIONS' | 'BAD_PIPELINE' | 'CORRUPT_SAMPLE' | 'WORKER_FAILED' | 'CLOSED';

/** Loader failures with stable codes; a decode failure names the sample. */
export class LoaderError extends Error {
  override readonly name = 'LoaderError';
  constructor(
    readonly code: LoaderErrorCode,
    message: string,
    readonly details: { sample?: number; batch?: number; field?: string } = {},
  ) {
    super(message);
  }
}
