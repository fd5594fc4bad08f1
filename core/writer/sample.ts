// The writer's input contract: what a source yields per item. Sources (core/sources/) sit
// above the writer and produce it; the writer takes any iterable of these, as FFCV's
// DatasetWriter takes any indexed dataset. Kept apart from the encoder so that importing
// the contract does not load it.

/** A sample: values keyed by field name, or a tuple in field order (as FFCV's datasets). */
export type Sample = Record<string, unknown> | readonly unknown[];

/**
 * A source item the source itself could not turn into a sample (a malformed row, a bad
 * cell). Sources yield it instead of throwing, so the writer's onError policy decides:
 * 'fail' stops with the reason, 'skip' leaves the item out and reports it. Plain data
 * (string key), so it crosses to worker threads intact.
 */
// A type alias so it is assignable to Sample's record type.
export type SkipMarker = {
  __betonSkip: { reason: string; source?: string; field?: string };
};

export function skipMarker(reason: string, source?: string, field?: string): SkipMarker {
  return { __betonSkip: { reason, ...(source ? { source } : {}), ...(field ? { field } : {}) } };
}

export function isSkipMarker(s: Sample): s is Sample & SkipMarker {
  return !Array.isArray(s) && typeof (s as Partial<SkipMarker>).__betonSkip === 'object';
}
