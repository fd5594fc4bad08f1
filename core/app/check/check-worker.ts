import { parentPort, workerData } from 'node:worker_threads';
import { Reader } from '../../reader/reader.js';
import { versionKey } from '../../reader/file-identity.js';
import { sampleFacts, type SampleFacts } from './sample-facts.js';

/** What the check hands each worker: a contiguous slice of the file's samples. */
export interface CheckWorkerData {
  path: string;
  /** The file version the check is about (file-identity.ts versionKey): the worker must read that one. */
  version: string;
  start: number;
  end: number;
  imageField: number | null;
  labelField: number | null;
}

export type CheckWorkerMessage = { type: 'facts'; facts: SampleFacts[] } | { type: 'done' } | { type: 'error'; message: string };

/**
 * Facts are posted in batches: progress moves, and no message carries a whole slice. A batch
 * also ends after BATCH_MS, so large images (100 ms each) still move the app's progress bar
 * several times a second.
 */
const BATCH = 32;
const BATCH_MS = 200;

async function run(): Promise<void> {
  const d = workerData as CheckWorkerData;
  const post = (m: CheckWorkerMessage): void => parentPort!.postMessage(m);
  let reader: Reader;
  try {
    reader = await Reader.open(d.path);
  } catch (e) {
    post({ type: 'error', message: (e as Error).message });
    return;
  }
  // The path may name another file by now (swapped during the check): refuse to read it.
  const same = (): boolean => {
    const st = reader.localStat();
    return st !== null && versionKey(st) === d.version;
  };
  const changed = 'the file was replaced or written to while it was checked; no result kept (run the check again)';
  try {
    if (!same()) {
      post({ type: 'error', message: changed });
      return;
    }
    let batch: SampleFacts[] = [];
    let since = performance.now();
    for (let i = d.start; i < d.end; i++) {
      batch.push(sampleFacts(reader, i, d.imageField, d.labelField));
      if (batch.length === BATCH || performance.now() - since >= BATCH_MS) {
        post({ type: 'facts', facts: batch });
        batch = [];
        since = performance.now();
      }
    }
    if (batch.length) post({ type: 'facts', facts: batch });
    if (!same()) post({ type: 'error', message: changed });
    else post({ type: 'done' });
  } finally {
    reader.close();
  }
}

void run();
