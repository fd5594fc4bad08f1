import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { InterruptedError } from '../format/errors.js';
import { RemoteError } from './errors.js';
import { s3Client } from './s3-client.js';
import { S3StreamUpload, withAttempts } from './s3-stream-upload.js';
import { uploadPhase } from './upload-phase.js';
import { parseRemoteUrl } from './url.js';

/** Files written beside a .beton that go up with it (before it completes). */
const SIDE_FILES = ['.manifest.json', '.skipped.json'] as const;

/**
 * One output written to s3:// (`build|merge -o s3://…`), from the upload's start to what
 * is at the key when it ends, whatever ends it:
 *
 *   create → build (parts stream as the file is written) → rest (the tail's parts) → head
 *   (part 1) → manifest (the sidecar files, PutObject) → complete → verify
 *
 * The manifest goes up before the object completes, so an object never appears without
 * it. Until CompleteMultipartUpload has answered, any failure or signal aborts the upload
 * and removes the sidecar files already sent: nothing is at the key, and the error says so
 * (or says that the abort failed and the lifecycle rule will remove the parts). After it,
 * the complete object (with its manifest) is at the key, and the error says that.
 */
export class S3Output {
  private upload: S3StreamUpload | null = null;
  private completed = false;
  private readonly sides: string[] = [];

  constructor(
    readonly url: string,
    private readonly signal: AbortSignal,
  ) {
    if (parseRemoteUrl(url).kind !== 's3') throw new RemoteError('REMOTE_BAD_URL', `${url}: writing is supported to s3:// URLs only`);
  }

  /** Starts the multipart upload the write streams into (when the write starts: a refused command never touches the bucket). */
  async open(expectedBytes?: number): Promise<S3StreamUpload> {
    if (this.upload) return this.upload;
    await uploadPhase('create', this.signal);
    this.signal.throwIfAborted();
    const partSize = Number(process.env['BETON_UPLOAD_PART_SIZE']);
    this.upload = await S3StreamUpload.create(this.url, {
      signal: this.signal,
      ...(expectedBytes ? { expectedBytes } : {}),
      // BETON_UPLOAD_PART_SIZE: the streamed parts' first size in bytes (default 16 MiB, at least 5 MiB).
      ...(Number.isInteger(partSize) && partSize > 0 ? { partSize } : {}),
    });
    // An id we hold can be aborted: a signal during the create is acted on here.
    this.signal.throwIfAborted();
    await uploadPhase('build', this.signal);
    return this.upload;
  }

  /** The write is done (`local`: its sparse local file): the rest of the parts, the manifest, completion, the check. */
  async finish(local: string): Promise<void> {
    const upload = await this.open();
    await uploadPhase('rest', this.signal);
    await upload.sendRest(local);
    for (const side of SIDE_FILES) {
      if (!existsSync(local + side)) continue;
      await uploadPhase('manifest', this.signal);
      await this.putSide(local + side, this.url + side);
    }
    await uploadPhase('complete', this.signal);
    this.signal.throwIfAborted();
    await upload.complete();
    this.completed = true;
    await uploadPhase('completed', this.signal);
    this.signal.throwIfAborted();
    await uploadPhase('verify', this.signal);
    await upload.verify((await stat(local)).size);
  }

  /**
   * After a failure or a signal (`e`): aborts what is not complete and returns the error to
   * report, its message saying what is at the key. A signal gives an InterruptedError (the
   * CLI exits 128 + n) whichever step it cut short.
   */
  async fail(e: unknown, what: string): Promise<unknown> {
    const state = await this.settle();
    const reason: unknown = this.signal.aborted ? this.signal.reason : e;
    if (reason instanceof InterruptedError) {
      const how = reason.signal === 'SIGINT' ? 'was interrupted (Ctrl-C)' : `was stopped by ${reason.signal}`;
      return new InterruptedError(reason.signal, `${what} ${how}; ${state}`);
    }
    // A failure before any upload (a bad source, bad options), or one whose upload was
    // simply aborted, is the command's own error ("No output file was written").
    if (!this.upload || (!this.completed && state === `nothing was written at ${this.url} (the multipart upload was aborted)`)) return e;
    const message = e instanceof Error ? e.message : String(e);
    return new RemoteError(e instanceof RemoteError ? e.code : 'REMOTE_UPLOAD_FAILED', `${message}; ${state}`, { cause: e });
  }

  private async settle(): Promise<string> {
    if (this.completed)
      return `the complete object is at ${this.url}${this.sides.length ? ` (with ${this.sides.map((s) => s.slice(s.lastIndexOf('/') + 1)).join(', ')})` : ''}: the upload had completed`;
    if (!this.upload) return `nothing was written at ${this.url}`;
    const aborted = await this.upload.abort();
    const removed = await this.removeSides();
    const sideNote = removed.failed.length
      ? `; ${removed.failed.join(', ')} could not be removed (delete ${removed.failed.length > 1 ? 'them' : 'it'} by hand)`
      : removed.done.length
        ? `; ${removed.done.join(', ')} was removed`
        : '';
    if (aborted.ok) return `nothing was written at ${this.url} (the multipart upload was aborted${sideNote})`;
    return (
      `nothing is visible at ${this.url}, but its multipart upload ${this.upload.uploadId} could not be aborted (${aborted.reason}): ` +
      `its parts stay, billed, until the bucket's lifecycle rule removes them (docs/remote.md)${sideNote}`
    );
  }

  private async putSide(path: string, url: string): Promise<void> {
    const u = parseRemoteUrl(url);
    if (u.kind !== 's3') return;
    const { client, sdk } = await s3Client();
    const body = await readFile(path);
    this.sides.push(url);
    await withAttempts(url, this.signal, () =>
      client.send(new sdk.PutObjectCommand({ Bucket: u.bucket, Key: u.key, Body: body }), { abortSignal: this.signal }),
    );
  }

  /** Removes the sidecar files sent before the object failed to complete (never cancelled). */
  private async removeSides(): Promise<{ done: string[]; failed: string[] }> {
    const done: string[] = [];
    const failed: string[] = [];
    const { client, sdk } = await s3Client();
    for (const url of this.sides) {
      const u = parseRemoteUrl(url);
      if (u.kind !== 's3') continue;
      try {
        await client.send(new sdk.DeleteObjectCommand({ Bucket: u.bucket, Key: u.key }));
        done.push(url);
      } catch {
        failed.push(url);
      }
    }
    return { done, failed };
  }
}
