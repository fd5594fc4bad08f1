/**
 * Argument checks the wrappers run before calling C++: a bad argument is a
 * NativeError('NATIVE_ARGUMENT') naming it, a short buffer NATIVE_BUFFER_SIZE, and
 * nothing has been written yet when either is thrown.
 */
import { NativeError } from './native-error.js';

export function argumentError(message: string): NativeError {
  return new NativeError('NATIVE_ARGUMENT', message);
}

export function requireBytes(value: unknown, name: string): Uint8Array {
  if (!(value instanceof Uint8Array)) throw argumentError(`${name} must be a Uint8Array`);
  return value;
}

export function requireInteger(value: unknown, name: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw argumentError(`${name} must be an integer in [${min}, ${max}], got ${String(value)}`);
  }
  return value;
}

export function requirePath(value: unknown): void {
  if (typeof value !== 'string' || value === '' || value.includes('\0')) {
    throw argumentError('path must be a non-empty string without NUL bytes');
  }
}

export function requireCapacity(buffer: Uint8Array, needed: number, name: string): void {
  if (buffer.length < needed) {
    throw new NativeError('NATIVE_BUFFER_SIZE', `${name} holds ${buffer.length} bytes but ${needed} are needed`);
  }
}

/** Where a wrapper writes `needed` bytes: the caller's `dst` when given (checked), else a new buffer. */
export function outputBytes(dst: Uint8Array | undefined, needed: number): Uint8Array {
  const target = dst === undefined ? new Uint8Array(needed) : requireBytes(dst, 'dst');
  requireCapacity(target, needed, 'dst');
  return target;
}

/** Largest JPEG side (TurboJPEG's bound, for the loader's decode wrappers). */
export const JPEG_SIDE_MAX = 65535;

/** A JPEG side or an output side: an integer in [1, JPEG_SIDE_MAX]. */
export function requireSide(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > JPEG_SIDE_MAX) {
    throw argumentError(`${name} must be an integer in [1, ${JPEG_SIDE_MAX}], got ${String(value)}`);
  }
  return value;
}
