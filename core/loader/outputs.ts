import type { BatchStage } from '../pipeline/stage.js';
import { byteSize, elementCount, viewOf, type OutputArray, type TensorSpec } from '../pipeline/dtypes.js';
import { planStages } from '../pipeline/plan.js';
import { isDecoder, type DecoderSpec, type OpSpec, type PipelineStep } from '../pipeline/spec.js';
import type { Reader } from '../reader/reader.js';
import { createDecoder, defaultDecoder, fieldStats } from './decoders.js';
import { LoaderError } from './errors.js';
import type { OutputPlan } from './protocol.js';
import { ownValue } from '../format/own-keys.js';

/** One output's steps (a decoder first, else the field's default), null to disable a field, or {source, steps} for an extra output. */
export type PipelineConfig = readonly PipelineStep[] | { source: string; steps: readonly PipelineStep[] } | null;

export interface Output {
  plan: OutputPlan;
  spec: TensorSpec;
  batchStages: BatchStage[];
  /** Buffers of batch-op results, one per slot (main thread only). */
  batchBuffers: OutputArray[];
  /** Rows are metadata bytes copied as they are (int/float, no ops): nanoseconds per row. */
  cheapRows: boolean;
  /** With cheapRows: the bytes of a row (the first bytes of the field's metadata member); 0 otherwise. */
  copyBytes: number;
}

/** Resolves `pipelines` into outputs (file fields in order, then extra outputs) with their plans and rings. */
export function planOutputs(reader: Reader, pipelines: Record<string, PipelineConfig>, batchSize: number, slots: number): Output[] {
  const out: Output[] = [];
  const names = reader.fields.map((f) => f.name);
  const entries: Array<[string, number, readonly PipelineStep[]]> = [];
  reader.fields.forEach(({ name }, f) => {
    const p = ownValue(pipelines, name) as PipelineConfig | null | undefined;
    if (p === null) return;
    entries.push([name, f, p === undefined ? [] : Array.isArray(p) ? p : (p as { steps: readonly PipelineStep[] }).steps]);
  });
  for (const [name, p] of Object.entries(pipelines)) {
    if (names.includes(name) || p === null) continue;
    if (Array.isArray(p) || !p || typeof (p as { source?: unknown }).source !== 'string') {
      throw new LoaderError(
        'BAD_PIPELINE',
        `pipeline "${name}" is not a field of the file; give it as { source: <field>, steps: [...] } (fields: ${names.join(', ')})`,
      );
    }
    const src = (p as { source: string; steps: readonly PipelineStep[] }).source;
    const f = names.indexOf(src);
    if (f < 0) throw new LoaderError('BAD_PIPELINE', `pipeline "${name}": source "${src}" is not a field (fields: ${names.join(', ')})`);
    entries.push([name, f, (p as { steps: readonly PipelineStep[] }).steps]);
  }
  if (entries.length === 0) throw new LoaderError('BAD_PIPELINE', 'every output is disabled; enable at least one field');
  for (const [name, f, steps] of entries) {
    const field = reader.fields[f]!.field;
    const first = steps[0];
    const decoder: DecoderSpec = first && isDecoder(first) ? first : defaultDecoder(field);
    const ops = (first && isDecoder(first) ? steps.slice(1) : steps) as OpSpec[];
    if (ops.some((s) => isDecoder(s as PipelineStep)))
      throw new LoaderError('BAD_PIPELINE', `pipeline "${name}": a decoder may only come first`);
    const stats = fieldStats(reader, f);
    let plan;
    let cheapRows = false;
    let copyBytes = 0;
    try {
      const dec = createDecoder(decoder, field, stats);
      plan = planStages(dec.output, ops);
      cheapRows = dec.copiesMetadata !== undefined && plan.stages.length === 0 && plan.batchStages.length === 0;
      if (cheapRows) copyBytes = dec.copiesMetadata ?? 0;
    } catch (e) {
      throw new LoaderError('BAD_PIPELINE', `pipeline "${name}": ${(e as Error).message}`, { field: name });
    }
    const ringBytes = Math.max(8, slots * batchSize * byteSize(plan.sampleOutput));
    let ring: SharedArrayBuffer;
    const batchBuffers: OutputArray[] = [];
    try {
      ring = new SharedArrayBuffer(ringBytes);
      for (const st of plan.batchStages) {
        for (let s = 0; s < slots; s++)
          batchBuffers.push(
            viewOf(st.output.dtype, new ArrayBuffer(batchSize * byteSize(st.output)), 0, batchSize * elementCount(st.output)),
          );
      }
    } catch (e) {
      if (!(e instanceof RangeError)) throw e;
      // Named sizes instead of V8's "Array buffer allocation failed".
      throw new LoaderError(
        'OUT_OF_MEMORY',
        `output "${name}": its batch ring (${slots} slots × ${batchSize} rows × ${byteSize(plan.sampleOutput)} bytes = ${(ringBytes / 2 ** 30).toFixed(2)} GiB) could not be allocated (${e.message}); lower batchSize, batchesAhead or the output size`,
        { field: name },
        e,
      );
    }
    out.push({
      plan: { name, field: f, decoder, ops, stats, sampleOutput: plan.sampleOutput, ring },
      spec: plan.output,
      batchStages: plan.batchStages,
      batchBuffers,
      cheapRows,
      copyBytes,
    });
  }
  return out;
}
