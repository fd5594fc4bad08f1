import type { StreamTarget } from '../remote/stream-target.js';

export type { StreamTarget };

/**
 * What the writer and the merge write their output through: a local file (a FileHandle
 * satisfies it) or a StreamedFile (streamed-file.ts) that sends the file's middle to object
 * storage as it is written and keeps only its first and last bytes locally.
 */
export interface OutputFile {
  write(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesWritten: number }>;
  truncate(len: number): Promise<void>;
  datasync(): Promise<void>;
  /**
   * The file's tail (the allocation table) starts here and is written next, in order. A
   * streamed output keeps it locally as well (the manifest's content hash reads it).
   */
  markTail?(position: number): void;
}
