/**
 * Writer worker: encodes chunks of samples (decode sources, resize, JPEG) and hands the
 * encoded bytes back. Placement into pages happens on the main thread, in sample order,
 * so the output does not depend on how many workers ran.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { schemaFromSpecs } from '../fields/schema.js';
import type { FieldSpec } from '../fields/field.js';
import { encodeSample, ownBuffer, type Sample } from './encode-sample.js';
import { nodeImageCodec } from '../native/image-codec.js';

export interface WorkerInit {
  fields: Array<{ name: string; spec: FieldSpec }>;
  fieldModules: string[];
  seed: number;
  baseDir?: string;
}

export interface ChunkJob {
  chunk: number;
  start: number;
  samples: Sample[];
}

export type ChunkResult =
  | { chunk: number; ok: true; encoded: Array<Array<{ meta: Uint8Array; heap: Uint8Array | null }>> }
  | { chunk: number; ok: false; error: { message: string; code?: string; sample?: number; field?: string; source?: string } };

const init = workerData as WorkerInit;
for (const m of init.fieldModules) await import(m);
const fields = schemaFromSpecs(init.fields);
const codec = nodeImageCodec();

parentPort!.on('message', (job: ChunkJob) => {
  void run(job);
});

async function run(job: ChunkJob): Promise<void> {
  const encoded: Array<Array<{ meta: Uint8Array; heap: Uint8Array | null }>> = [];
  const transfer: ArrayBuffer[] = [];
  try {
    for (let i = 0; i < job.samples.length; i++) {
      const values = await encodeSample(fields, job.samples[i]!, job.start + i, { codec, seed: init.seed, baseDir: init.baseDir });
      encoded.push(
        values.map((v) => {
          const heap = v.heap ? ownBuffer(v.heap) : null;
          if (heap) transfer.push(heap.buffer as ArrayBuffer);
          return { meta: v.meta, heap };
        }),
      );
    }
    const msg: ChunkResult = { chunk: job.chunk, ok: true, encoded };
    parentPort!.postMessage(msg, transfer);
  } catch (e) {
    const err = e as Error & { code?: string; details?: Record<string, unknown> };
    const msg: ChunkResult = {
      chunk: job.chunk,
      ok: false,
      error: { message: err.message, code: err.code, ...(err.details ?? {}) },
    };
    parentPort!.postMessage(msg);
  }
}
