import { z } from 'zod';
import { ReplaceLabelStage } from '../sample-ops.js';
import type { OpType } from './op-type.js';

/** ReplaceLabel: the samples whose ids are listed get `label`. */
export const schema = z
  .object({ op: z.literal('replace_label'), indices: z.array(z.number().int().min(0)), label: z.number().int() })
  .strict();
export type ReplaceLabelSpec = z.output<typeof schema>;

export const ReplaceLabel = (indices: readonly number[], label: number): ReplaceLabelSpec => ({
  op: 'replace_label',
  indices: [...indices],
  label,
});

export const replaceLabel: OpType<ReplaceLabelSpec> = {
  op: 'replace_label',
  sampleStage: (input, s) => new ReplaceLabelStage(input, s),
  ffcvImports: ['ReplaceLabel'],
  python: (s) => [`ReplaceLabel(np.array(${JSON.stringify(s.indices)}), ${s.label})`],
};
