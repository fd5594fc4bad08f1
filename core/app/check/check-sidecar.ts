import { z } from 'zod';
import type { DatasetCheck } from '../../api/dataset-check.js';

/**
 * The shape of a kept check (`X.beton.check.json`). A sidecar is a file like any other in a
 * served folder: anyone who can write there can write it, so it is parsed, not trusted
 * (one with the right hash but `duplicates: {}` made `datasets.sample` fail with
 * "r?.duplicates.find is not a function"). Ids must be samples of the file.
 */
const id = z.number().int().nonnegative();
const group = z.array(id);

export const DatasetCheckSchema = z
  .object({
    format: z.literal('beton-studio/dataset-check'),
    version: z.literal(1),
    beton: z.object({
      file: z.string(),
      contentSha256: z.string(),
      dataSha256: z.string().regex(/^[0-9a-f]{64}$/),
      fileVersion: z.string(),
      fileSize: z.number().int().nonnegative(),
      numSamples: z.number().int().nonnegative(),
    }),
    imageField: z.string().nullable(),
    labelField: z.string().nullable(),
    thresholds: z.object({ hamming: z.number(), minSide: z.number(), maxAspect: z.number(), minStdDev: z.number() }),
    result: z.object({
      corrupt: z.array(z.object({ id, error: z.string() })),
      duplicates: z.array(group),
      near_duplicates: z.array(group),
      outliers: z.array(z.object({ id, reason: z.string() })),
      classes: z.record(z.string(), z.number()),
      omitted: z
        .object({
          duplicateGroups: z.number(),
          duplicateIds: z.number(),
          nearDuplicateGroups: z.number(),
          nearDuplicateIds: z.number(),
          nearSearchComplete: z.boolean(),
        })
        .optional(),
    }),
    labelConflicts: z.object({ duplicates: z.number().int().nonnegative(), near_duplicates: z.number().int().nonnegative() }),
    elapsedMs: z.number(),
    samplesPerSec: z.number(),
    createdAt: z.string(),
  })
  .refine((d) => {
    const n = d.beton.numSamples;
    const r = d.result;
    const ok = (i: number): boolean => i < n;
    return (
      r.corrupt.every((c) => ok(c.id)) &&
      r.outliers.every((o) => ok(o.id)) &&
      r.duplicates.every((g) => g.every(ok)) &&
      r.near_duplicates.every((g) => g.every(ok))
    );
  }, 'a sample id is past the file');

/** The sidecar's text as a DatasetCheck, or null when it is not one (any shape error). */
export function parseCheckSidecar(text: string): DatasetCheck | null {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  const r = DatasetCheckSchema.safeParse(raw);
  return r.success ? (r.data as DatasetCheck) : null;
}
