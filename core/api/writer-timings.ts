/**
 * Where a write's time goes (DatasetWriterOptions.timings; bench/writer.ts prints it).
 * Stage times are thread CPU milliseconds where the addon can read the thread's clock:
 * the build machines are shared, and wall time would also count other processes.
 */

/** One encode worker's account. */
export interface WorkerTimings {
  /** Samples it encoded. */
  samples: number;
  /** Samples stored by the one-call native path (read → decode → resize → encode). */
  transcoded: number;
  /** Wall ms from the worker's spawn until its modules were loaded. */
  startupMs: number;
  /** Wall ms spent inside chunks (the rest of the build it waited for work). */
  busyMs: number;
  /** Thread CPU ms inside chunks; null without the addon's thread clock. */
  cpuMs: number | null;
  /** Thread CPU ms reading source files (one-call path). */
  readMs: number;
  /** Thread CPU ms decoding source JPEGs (one-call path). */
  decodeMs: number;
  /** Thread CPU ms resizing (one-call path). */
  resizeMs: number;
  /** Thread CPU ms JPEG-encoding, and copying raw pixels out (one-call path). */
  encodeMs: number;
  /** Wall ms posting results to the main thread (structured clone of a chunk's outcomes). */
  postMs: number;
}

/** The main thread's account (it cuts chunks, places samples in order, writes pages). */
export interface MainTimings {
  /** Thread CPU ms from the start of write() to the end; null without the thread clock. */
  cpuMs: number | null;
  /** Wall ms placing samples: allocation, metadata records, copying heap objects into pages. */
  placeMs: number;
  /** Wall ms copying full pages and queueing their writes (the writes themselves run in libuv's pool). */
  pageWriteMs: number;
  /** Wall ms from the last sample placed to the file renamed (tables, header, fsync). */
  finishMs: number;
}

export interface WriterTimings {
  wallMs: number;
  main: MainTimings;
  /** One entry per encode worker (none when numWorkers is 0). */
  workers: WorkerTimings[];
}
