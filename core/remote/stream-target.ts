/**
 * Where a streamed output's bytes go (an S3 multipart upload: core/remote/s3-stream-upload.ts).
 * The file's first `headBytes` or more (header, field table, metadata table: written last)
 * stay in the local file and are sent last, as part 1; everything after them is appended in
 * file order as it is written; the local file's tail is sent when the write is done.
 */
export interface StreamTarget {
  /** Part 1's least size (S3: 5 MiB, every part but the last). */
  readonly headBytes: number;
  /** Streamed bytes start at this file offset (once, before the first append). */
  begin(keepEnd: number): void;
  /** The next bytes of the file, in order; copied before it resolves; may wait (back-pressure). */
  append(bytes: Uint8Array): Promise<void>;
}
