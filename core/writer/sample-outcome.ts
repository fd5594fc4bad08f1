import type { SkippedSample } from '../api/build-report.js';
import type { EncodedValue } from '../fields/field.js';
import { BetonEncodeError, type EncodeErrorCode } from '../format/errors.js';

export type { SkippedSample };

/** What encoding one source item produced: its fields, or why it failed. */
export type SampleOutcome =
  | { ok: true; values: EncodedValue[] }
  /** code: the encode error's (OBJECT_TOO_LARGE, …), kept so a build that stops reports it rather than BAD_VALUE. */
  | { ok: false; skipped: SkippedSample; code?: EncodeErrorCode };

/** The outcome of a sample whose encoding threw `e`. */
export function failedOutcome(index: number, e: unknown): SampleOutcome {
  return e instanceof BetonEncodeError
    ? { ok: false, skipped: failureOf(index, e), code: e.code }
    : { ok: false, skipped: failureOf(index, e) };
}

export function failureOf(index: number, e: unknown): SkippedSample {
  const err = e as Error & { details?: { source?: string; field?: string } };
  return {
    index,
    reason: err.message,
    ...(err.details?.source ? { source: err.details.source } : {}),
    ...(err.details?.field ? { field: err.details.field } : {}),
  };
}
