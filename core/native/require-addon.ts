/**
 * Loading a .node file, for both addons (core/native/beton-addon.ts, turbo-addon.ts): a
 * failure becomes NativeError('NATIVE_LOAD') naming the file and saying how to build it.
 */
import { createRequire } from 'node:module';
import { NativeError } from './native-error.js';

/** `require`s the addon at `path`; `what` names it in the message ("the native addon"). */
export function requireAddon<T>(path: string, what: string): T {
  try {
    return createRequire(import.meta.url)(path) as T;
  } catch (error) {
    throw requireAddonError(path, what, error);
  }
}

export function requireAddonError(path: string, what: string, error: unknown): NativeError {
  const reason = error instanceof Error ? error.message : String(error);
  return new NativeError('NATIVE_LOAD', `cannot load ${what} at ${path} (build it with "npm run build:native"): ${reason}`, {
    cause: error,
  });
}
