import type { ElementType, OutputArray } from '../pipeline/dtypes.js';
import { ownValue, setOwn } from '../format/own-keys.js';
import { BetonError } from '../format/errors.js';

/** One output of a batch: a typed array (rows × per-sample elements, C order) and its shape. */
export interface BatchOutput {
  data: OutputArray;
  /** [rows, ...per-sample shape] */
  shape: number[];
  dtype: ElementType;
}

/**
 * A batch yielded by the loader. Its arrays are views into a shared-memory slot of the
 * ring: valid until the next step of the iteration, when the slot is reused. Keep data
 * across steps with `clone()`.
 */
export class Batch {
  constructor(
    readonly epoch: number,
    /** Index of the batch within its epoch. */
    readonly index: number,
    /** Sample ids of the rows, in order. */
    readonly sampleIds: Uint32Array,
    readonly outputs: Record<string, BatchOutput>,
  ) {}

  get size(): number {
    return this.sampleIds.length;
  }

  get(name: string): BatchOutput {
    const o = ownValue(this.outputs, name) as BatchOutput | undefined;
    if (!o)
      throw new BetonError('BAD_FIELD', `no output "${name}" (outputs: ${Object.keys(this.outputs).join(', ')})`, {
        hint: 'Name a field of the file, or an output the loader was given a pipeline for.',
      });
    return o;
  }

  /** A deep copy that outlives the next iteration step. */
  clone(): Batch {
    const outputs: Record<string, BatchOutput> = {};
    for (const [k, o] of Object.entries(this.outputs))
      setOwn(outputs, k, { data: o.data.slice() as OutputArray, shape: [...o.shape], dtype: o.dtype });
    return new Batch(this.epoch, this.index, this.sampleIds.slice(), outputs);
  }
}
