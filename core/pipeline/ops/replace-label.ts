import { z } from 'zod';
import type { OutputArray, TensorSpec } from '../dtypes.js';
import type { SampleStage, StageContext } from '../stage.js';
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

/** ReplaceLabel: samples whose id is listed get `label`. In place. */
export class ReplaceLabelStage implements SampleStage {
  readonly name = 'replace_label';
  readonly inPlace = true;
  readonly output: TensorSpec;
  private readonly ids: Set<number>;
  constructor(
    readonly input: TensorSpec,
    o: ReplaceLabelSpec,
    private readonly label = o.label,
  ) {
    this.output = input;
    this.ids = new Set(o.indices);
  }
  run(src: OutputArray, _dst: OutputArray, ctx: StageContext): void {
    if (!this.ids.has(ctx.sampleId)) return;
    if (src instanceof BigInt64Array || src instanceof BigUint64Array) src.fill(BigInt(this.label));
    else src.fill(this.label);
  }
}

export const replaceLabel: OpType<ReplaceLabelSpec> = {
  op: 'replace_label',
  sampleStage: (input, s) => new ReplaceLabelStage(input, s),
  ffcvImports: ['ReplaceLabel'],
  python: (s) => [`ReplaceLabel(np.array(${JSON.stringify(s.indices)}), ${s.label})`],
};
