import type { WorkerTimings } from '../api/writer-timings.js';

export type { MainTimings, WorkerTimings, WriterTimings } from '../api/writer-timings.js';

export function emptyWorkerTimings(): WorkerTimings {
  return { samples: 0, transcoded: 0, startupMs: 0, busyMs: 0, cpuMs: null, readMs: 0, decodeMs: 0, resizeMs: 0, encodeMs: 0, postMs: 0 };
}
