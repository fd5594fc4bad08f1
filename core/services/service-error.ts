import type { ApiError } from '../api/contract.js';
import { asBetonError, BetonError } from '../format/errors.js';

export type ServiceErrorCode = 'BAD_REQUEST' | 'NOT_FOUND' | 'FORBIDDEN' | 'EXEC_DISABLED' | 'UNKNOWN_JOB' | 'FAILED' | 'BUSY';

/** An error a service reports to the client as `{ code, message }`. */
export class ServiceError extends BetonError<ServiceErrorCode> {
  override readonly name: string = 'ServiceError';
  constructor(code: ServiceErrorCode, message: string) {
    super(code, message);
  }
}

/**
 * The `{ code, message }` the client gets for a failure: a BetonError's code (or a system,
 * SQLite or out-of-memory error's, through asBetonError) with its hint appended, so the app
 * shows what to do; FAILED only for what is not ours (a bug).
 */
export function apiErrorOf(e: unknown): ApiError {
  const be = asBetonError(e);
  if (!be) return { code: 'FAILED', message: e instanceof Error ? e.message : String(e) };
  return { code: be.code, message: be.hint ? `${be.message}. ${be.hint}` : be.message };
}
