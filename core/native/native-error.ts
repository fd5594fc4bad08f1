/**
 * The one error type of both addons (beton_native and beton_turbo). The raw addons throw
 * plain Errors carrying a `code`, or TypeError/RangeError for malformed arguments; every
 * wrapper in core/native reports them as a {@link NativeError} with a stable code instead.
 */
import { BetonError } from '../format/errors.js';

export type NativeErrorCode =
  /** The addon could not be found or loaded. */
  | 'NATIVE_LOAD'
  /** A wrapper rejected an argument before calling C++. */
  | 'NATIVE_ARGUMENT'
  /** A buffer is too small for the image it must hold. */
  | 'NATIVE_BUFFER_SIZE'
  /** open/stat/mmap/madvise failed. */
  | 'NATIVE_IO'
  /** libjpeg rejected the data (corrupt or unsupported JPEG). */
  | 'NATIVE_JPEG'
  /** libjpeg recovered from corrupt data and `strict` was requested. */
  | 'NATIVE_JPEG_WARNING';

/** The codes the C++ side sets on the Errors it throws. */
const ADDON_ERROR_CODES: ReadonlySet<string> = new Set<NativeErrorCode>([
  'NATIVE_LOAD',
  'NATIVE_BUFFER_SIZE',
  'NATIVE_IO',
  'NATIVE_JPEG',
  'NATIVE_JPEG_WARNING',
]);

export class NativeError extends BetonError<NativeErrorCode> {
  override readonly name: string = 'NativeError';

  constructor(code: NativeErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/** Re-throws an addon failure as a NativeError; anything else unchanged. */
function rethrow(error: unknown): never {
  if (error instanceof Error) {
    const code: unknown = (error as { code?: unknown }).code;
    if (typeof code === 'string' && ADDON_ERROR_CODES.has(code)) {
      throw new NativeError(code as NativeErrorCode, error.message, { cause: error });
    }
    // The addon re-checks arguments and throws TypeError/RangeError; the
    // wrappers should have caught those already, but keep one error type.
    if (error instanceof TypeError || error instanceof RangeError) {
      throw new NativeError('NATIVE_ARGUMENT', error.message, { cause: error });
    }
  }
  throw error;
}

/** Runs a call into an addon, mapping its failures to NativeError. */
export function callAddon<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    return rethrow(error);
  }
}
