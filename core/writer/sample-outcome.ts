import type { SkippedSample } from '../api/build-report.js';
import type { EncodedValue } from '../fields/field.js';

export type { SkippedSample };

/** What encoding one source item produced: its fields, or why it failed. */
export type SampleOutcome = { ok: true; values: EncodedValue[] } | { ok: false; skipped: SkippedSample };

export function failureOf(index: number, e: unknown): SkippedSample {
  const err = e as Error & { details?: { source?: string; field?: string } };
  return {
    index,
    reason: err.message,
    ...(err.details?.source ? { source: err.details.source } : {}),
    ...(err.details?.field ? { field: err.details.field } : {}),
  };
}
