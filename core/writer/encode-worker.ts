/**
 * Writer worker: encodes chunks of samples (decode sources, resize, JPEG) and hands the
 * encoded bytes back. Placement into pages happens on the main thread, in sample order,
 * so the output does not depend on how many workers ran.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { schemaFromSpecs } from '../fields/schema.js';
import { nodeImageCodec } from '../native/image-codec.js';
import type { ChunkJob, ChunkResult, WorkerInit } from './encode-pool.js';
import { encodeSample, ownBuffer } from './encode-sample.js';
import { failureOf, type SampleOutcome } from './sample-outcome.js';

const init = workerData as WorkerInit;
for (const m of init.fieldModules) await import(m);
const fields = schemaFromSpecs(init.fields);
const codec = nodeImageCodec();

parentPort!.on('message', (job: ChunkJob) => {
  void run(job);
});

async function run(job: ChunkJob): Promise<void> {
  try {
    const outcomes: SampleOutcome[] = [];
    const transfer = new Set<ArrayBuffer>();
    for (let i = 0; i < job.samples.length; i++) {
      const index = job.start + i;
      try {
        const values = await encodeSample(fields, job.samples[i]!, index, { codec, seed: init.seed, baseDir: init.baseDir, indexBase: init.indexBase });
        for (const v of values) {
          if (!v.heap) continue;
          v.heap = ownBuffer(v.heap);
          transfer.add(v.heap.buffer as ArrayBuffer);
        }
        outcomes.push({ ok: true, values });
      } catch (e) {
        outcomes.push({ ok: false, skipped: failureOf(index, e) });
      }
    }
    const msg: ChunkResult = { chunk: job.chunk, ok: true, outcomes };
    parentPort!.postMessage(msg, [...transfer]);
  } catch (e) {
    const msg: ChunkResult = { chunk: job.chunk, ok: false, error: (e as Error).stack ?? String(e) };
    parentPort!.postMessage(msg);
  }
}
