import type { EncodedValue } from '../fields/field.js';

/** Why a source item was left out of the dataset ('skip' policy). */
export interface SkippedSample {
  /** Position in the source (after range/shard selection). */
  index: number;
  /** The file or row it came from, when known. */
  source?: string;
  field?: string;
  reason: string;
}

/** What encoding one source item produced: its fields, or why it failed. */
export type SampleOutcome = { ok: true; values: EncodedValue[] } | { ok: false; skipped: SkippedSample };

export function failureOf(index: number, e: unknown): SkippedSample {
  const err = e as Error & { details?: { source?: string; field?: string } };
  return { index, reason: err.message, ...(err.details?.source ? { source: err.details.source } : {}), ...(err.details?.field ? { field: err.details.field } : {}) };
}
