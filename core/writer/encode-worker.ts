/**
 * Writer worker: encodes chunks of samples (decode sources, resize, JPEG) and hands the
 * encoded bytes back. Placement into pages happens on the main thread, in sample order,
 * so the output does not depend on how many workers ran.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { WorkerTimings } from '../api/writer-timings.js';
import type { ImageCodec } from '../fields/image-codec.js';
import { schemaFromSpecs } from '../fields/schema.js';
import { nodeImageCodec } from '../images/node-image-codec.js';
import { transcodeSource, type TranscodeClock } from '../images/transcode-source.js';
import { threadCpuMs } from '../native/writer-transcode.js';
import type { ChunkJob, ChunkResult, WorkerInit } from './encode-pool.js';
import { encodeSample } from './encode-sample.js';
import { failedOutcome, type SampleOutcome } from './sample-outcome.js';

const init = workerData as WorkerInit;
for (const m of init.fieldModules) await import(m);
const fields = schemaFromSpecs(init.fields);
const base = nodeImageCodec();
// With timings on, the one-call path reports its stages into `clock`.
const clock: TranscodeClock | null = init.timings ? { transcoded: 0, readMs: 0, stages: new Float64Array(3) } : null;
const codec: ImageCodec = clock ? { ...base, transcode: (input, baseDir, plan) => transcodeSource(input, baseDir, plan, clock) } : base;
// performance.now() counts from the process's start in every thread, so the pool turns
// this into the time since it spawned the worker.
const readyAt = performance.now();
// This worker's account, sent back with each chunk's results (zero until it encodes).
const timings: WorkerTimings | null = init.timings
  ? { samples: 0, transcoded: 0, startupMs: 0, busyMs: 0, cpuMs: null, readMs: 0, decodeMs: 0, resizeMs: 0, encodeMs: 0, postMs: 0 }
  : null;

parentPort!.on('message', (job: ChunkJob) => {
  void run(job);
});

async function run(job: ChunkJob): Promise<void> {
  const t0 = performance.now();
  const c0 = timings ? threadCpuMs() : null;
  try {
    const outcomes: SampleOutcome[] = [];
    for (let i = 0; i < job.samples.length; i++) {
      const index = job.start + i;
      try {
        const values = await encodeSample(fields, job.samples[i]!, index, {
          codec,
          seed: init.seed,
          baseDir: init.baseDir,
          indexBase: init.indexBase,
          maxObjectBytes: init.maxObjectBytes,
        });
        outcomes.push({ ok: true, values });
      } catch (e) {
        outcomes.push(failedOutcome(index, e));
      }
    }
    const transfer = pack(outcomes);
    const msg: ChunkResult = { chunk: job.chunk, ok: true, outcomes, readyAt };
    let c1: number | null = null;
    if (timings && clock) {
      // Cumulative, so the main thread keeps the latest; the post itself is counted in the next chunk's.
      timings.samples += job.samples.length;
      timings.transcoded = clock.transcoded;
      timings.readMs = clock.readMs;
      timings.decodeMs = clock.stages[0]!;
      timings.resizeMs = clock.stages[1]!;
      timings.encodeMs = clock.stages[2]!;
      timings.busyMs += performance.now() - t0;
      c1 = threadCpuMs();
      if (c0 !== null && c1 !== null) timings.cpuMs = (timings.cpuMs ?? 0) + c1 - c0;
      msg.timings = { ...timings };
    }
    const p0 = performance.now();
    parentPort!.postMessage(msg, [...transfer]);
    if (timings) {
      const p1 = performance.now();
      timings.postMs += p1 - p0;
      timings.busyMs += p1 - p0;
      const c2 = threadCpuMs();
      if (c1 !== null && c2 !== null) timings.cpuMs = (timings.cpuMs ?? 0) + c2 - c1;
    }
  } catch (e) {
    const msg: ChunkResult = { chunk: job.chunk, ok: false, error: (e as Error).stack ?? String(e) };
    parentPort!.postMessage(msg);
  }
}

/**
 * Moves a chunk's heap objects into one buffer and its metadata members into another (the
 * values become views of them) and returns the two to transfer. Sent one buffer per value,
 * a 100-sample chunk made the main thread receive and later garbage-collect ~200 small
 * ArrayBuffers; as two, its collector work on a 3000-image build fell by most of ~100 ms.
 */
function pack(outcomes: SampleOutcome[]): ArrayBuffer[] {
  let heapBytes = 0;
  let metaBytes = 0;
  for (const o of outcomes) {
    if (!o.ok) continue;
    for (const v of o.values) {
      heapBytes += v.heap?.byteLength ?? 0;
      metaBytes += v.meta.byteLength;
    }
  }
  const heap = new Uint8Array(heapBytes);
  const meta = new Uint8Array(metaBytes);
  let h = 0;
  let m = 0;
  for (const o of outcomes) {
    if (!o.ok) continue;
    for (const v of o.values) {
      meta.set(v.meta, m);
      v.meta = meta.subarray(m, m + v.meta.byteLength);
      m += v.meta.byteLength;
      if (v.heap) {
        heap.set(v.heap, h);
        v.heap = heap.subarray(h, h + v.heap.byteLength);
        h += v.heap.byteLength;
      }
    }
  }
  return [heap.buffer, meta.buffer];
}
