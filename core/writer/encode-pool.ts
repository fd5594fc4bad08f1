import type { Worker } from 'node:worker_threads';
import type { FieldSpec } from '../fields/field.js';
import type { Sample } from './sample.js';
import type { SampleOutcome } from './sample-outcome.js';
import { spawnWorker } from '../workers/spawn-worker.js';
import type { WorkerTimings } from '../api/writer-timings.js';

export interface WorkerInit {
  fields: Array<{ name: string; spec: FieldSpec }>;
  fieldModules: string[];
  seed: number;
  baseDir?: string;
  indexBase?: number;
  /** The page size (EncodeContext.maxObjectBytes). */
  maxObjectBytes?: number;
  /** Collect stage timings (DatasetWriterOptions.timings). */
  timings?: boolean;
}

export interface ChunkJob {
  chunk: number;
  start: number;
  samples: Sample[];
}

export type ChunkResult =
  | {
      chunk: number;
      ok: true;
      outcomes: SampleOutcome[];
      timings?: WorkerTimings;
      /** performance.now() when the worker had loaded. */ readyAt: number;
    }
  | { chunk: number; ok: false; error: string };

/**
 * A fixed pool of encode workers. Chunks are cut from the source in order, one pull at a
 * time, and each worker holds at most DEPTH chunks, which bounds memory. Two per worker
 * keep it busy while the main thread places its last result and cuts the next chunk
 * (with one, a worker idles for that round trip: measured ~1.0 of 2 cores busy).
 * Results are placed strictly in chunk order whatever order workers finish in.
 */
const DEPTH = 2;
/** Smallest chunk cut near the end (see chunkFor). */
const MIN_TAIL_CHUNK = 4;
export class EncodePool {
  private readonly workers: Worker[];
  /** Each worker's latest cumulative timings (with init.timings). */
  readonly timings = new Map<Worker, WorkerTimings>();

  /** performance.now() at each worker's spawn: the same clock in every thread of the process. */
  private readonly spawnedAt = new Map<Worker, number>();

  constructor(n: number, init: WorkerInit) {
    this.workers = Array.from({ length: n }, () => {
      const t = performance.now();
      const w = spawnWorker('./encode-worker.js', import.meta.url, init);
      this.spawnedAt.set(w, t);
      return w;
    });
  }

  run(
    source: AsyncIterable<Sample> | Iterable<Sample>,
    chunkSize: number,
    place: (outcomes: SampleOutcome[], start: number) => void,
    signal?: AbortSignal,
    total: number | null = null,
    /** Awaited before each pull of samples: the output's back-pressure (page-writer.ts backlog). */
    outputReady: () => Promise<void> = () => Promise.resolve(),
  ): Promise<void> {
    const n = this.workers.length;
    /**
     * Samples in the chunk starting at `start`: `chunkSize`, except near the end of a source
     * of known length, where chunks shrink so that the workers run out of work together. With
     * whole chunks, one worker could still hold up to DEPTH of them (2 x 100 samples, a
     * quarter second) while the others had nothing left. The output does not depend on it.
     */
    const chunkFor = (start: number): number => {
      if (total === null || total <= start) return chunkSize;
      const share = Math.ceil((total - start) / (n * DEPTH * 2));
      return Math.max(1, Math.min(chunkSize, Math.max(MIN_TAIL_CHUNK, share)));
    };
    const iterator: AsyncIterator<Sample> | Iterator<Sample> =
      Symbol.asyncIterator in source
        ? (source as AsyncIterable<Sample>)[Symbol.asyncIterator]()
        : (source as Iterable<Sample>)[Symbol.iterator]();
    const inFlight = new Map<Worker, number>();
    const starts = new Map<number, number>();
    const ready = new Map<number, SampleOutcome[]>();
    let nextChunk = 0;
    let nextToPlace = 0;
    let start = 0;
    let exhausted = false;

    return new Promise<void>((resolveRun, rejectRun) => {
      let settled = false;
      const finish = (e?: Error): void => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        if (e) rejectRun(e);
        else resolveRun();
      };
      const onAbort = (): void => finish(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
      signal?.addEventListener('abort', onAbort, { once: true });
      if (signal?.aborted) return onAbort();

      const maybeDone = (): void => {
        if (exhausted && [...inFlight.values()].every((n) => n === 0) && ready.size === 0) finish();
      };

      // One pull at a time, so each chunk holds contiguous samples.
      let pulling: Promise<void> = Promise.resolve();
      const dispatch = (w: Worker): void => {
        pulling = pulling.then(async () => {
          try {
            await outputReady();
          } catch (e) {
            finish(e as Error);
            return;
          }
          await pull(w);
        });
      };
      const pull = async (w: Worker): Promise<void> => {
        if (settled) return;
        const samples: Sample[] = [];
        try {
          const size = chunkFor(start);
          while (!exhausted && samples.length < size) {
            const r = await iterator.next();
            if (r.done) exhausted = true;
            else samples.push(r.value);
          }
        } catch (e) {
          finish(e as Error);
          return;
        }
        if (samples.length === 0) {
          maybeDone();
          return;
        }
        inFlight.set(w, (inFlight.get(w) ?? 0) + 1);
        const chunk = nextChunk++;
        starts.set(chunk, start);
        const job: ChunkJob = { chunk, start, samples };
        start += samples.length;
        w.postMessage(job);
      };

      for (const w of this.workers) {
        w.on('message', (res: ChunkResult) => {
          if (settled) return;
          if (!res.ok) return finish(new Error(res.error));
          if (res.timings) this.timings.set(w, { ...res.timings, startupMs: res.readyAt - (this.spawnedAt.get(w) ?? res.readyAt) });
          inFlight.set(w, (inFlight.get(w) ?? 1) - 1);
          ready.set(res.chunk, res.outcomes);
          try {
            while (ready.has(nextToPlace)) {
              place(ready.get(nextToPlace)!, starts.get(nextToPlace)!);
              ready.delete(nextToPlace);
              starts.delete(nextToPlace);
              nextToPlace++;
            }
          } catch (e) {
            return finish(e as Error);
          }
          dispatch(w);
          maybeDone();
        });
        w.on('error', (e) => finish(e));
        w.on('exit', (code) => {
          if (code !== 0) finish(new Error(`an encode worker exited with code ${code}`));
        });
        inFlight.set(w, 0);
      }
      for (let d = 0; d < DEPTH; d++) for (const w of this.workers) dispatch(w);
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
