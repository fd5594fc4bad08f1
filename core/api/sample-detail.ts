import { z } from 'zod';
import type { PreviewValue } from './preview-value.js';

/**
 * A filter on any int, float or string (json) field of a .beton: a range (`min` ≤ v ≤
 * `max`, either end open) or a list of values. The Dataset screen's field filters send it
 * with `datasets.preview`.
 */
export const SampleWhere = z
  .object({
    field: z.string().min(1).max(256),
    min: z.number().optional(),
    max: z.number().optional(),
    values: z
      .array(z.union([z.string().max(4096), z.number()]))
      .min(1)
      .max(1000)
      .optional(),
  })
  .strict()
  .refine((w) => w.min !== undefined || w.max !== undefined || w.values !== undefined, 'give min, max or values');
export type SampleWhere = z.infer<typeof SampleWhere>;

/** `datasets.sample`: one sample in full, for the detail view. */
export interface SampleDetail {
  path: string;
  index: number;
  numSamples: number;
  fields: Array<{
    name: string;
    type: string;
    /** Images at full resolution (the stored JPEG itself, or a PNG of raw pixels); other values as full text. */
    value: PreviewValue;
    /** Bytes in the data pages (0: the value lives in the sample's record). */
    storedBytes: number;
    /** The data page and file offset of the value; null for values stored in the record. */
    page: number | null;
    offset: number | null;
  }>;
  className: string | null;
  /** From a kept check (`X.beton.check.json` of this very file): the groups this sample is in. */
  duplicates: number[] | null;
  nearDuplicates: number[] | null;
  /** Why the kept check flagged it (corrupt / outlier), if it did. */
  flags: string[];
}
