import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import type { StreamTarget } from './stream-target.js';
import { RemoteError } from './errors.js';
import { maxAttempts, Transient } from './retry.js';
import { s3Client, type S3 } from './s3-client.js';
import { s3Error } from './s3-range-client.js';
import { parseRemoteUrl } from './url.js';
import { uploadPhase } from './upload-phase.js';

/** S3's rules: every part but the last at least 5 MiB, at most 10,000 parts. */
export const MIN_PART = 5 * 2 ** 20;
const MAX_PARTS = 10_000;
const BASE_PART = 16 * 2 ** 20;
/** Parts at one size before the size doubles (a build does not know its size ahead). */
const PARTS_PER_STEP = 1_500;
/** How long an abort waits for the part requests in flight to end by themselves. */
const PART_GRACE_MS = 6_000;

/**
 * The size of streamed part `k` (k = 2, 3, …): `base` for the first PARTS_PER_STEP parts,
 * then doubling every PARTS_PER_STEP parts, so that 10,000 parts hold ~2 TiB from a 16 MiB
 * base whatever the output turns out to be. With a known size the base is raised until the
 * file fits in 10,000 parts at the base size.
 */
export function streamPartSize(k: number, base: number): number {
  return base * 2 ** Math.floor((k - 2) / PARTS_PER_STEP);
}

export interface StreamUploadOptions {
  /** Aborts the part uploads in flight (Ctrl-C, SIGTERM). */
  signal?: AbortSignal;
  /** The output's size when known (a merge): parts are sized for it. */
  expectedBytes?: number;
  /** The streamed parts' first size (default 16 MiB; at least 5 MiB). */
  partSize?: number;
  /** Part uploads in flight (default 4); what the stream holds in memory is about (concurrency + 1) parts. */
  concurrency?: number;
}

interface Part {
  PartNumber: number;
  ETag: string;
  md5: Buffer;
}

/**
 * A multipart upload fed as the file is written (the writer's StreamTarget): parts 2, 3, …
 * are sent while the build runs, each when full, a few in flight (`append` waits when the
 * network is the slower side); the local file's kept head is sent last as part 1 and its
 * tail as the last parts (`sendRest`), then `complete` makes the object appear. `abort`
 * removes the parts after any failure or signal: nothing appears at the key.
 */
export class S3StreamUpload implements StreamTarget {
  readonly headBytes = MIN_PART;
  private keepEnd: number | null = null;
  private streamed = 0;
  private current: Buffer;
  private fill = 0;
  private nextPart = 2;
  private readonly base: number;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly parts: Part[] = [];
  private failure: unknown = null;
  private aborted = false;
  /** Cancels part requests still in flight when an abort has waited PART_GRACE_MS for them. */
  private readonly cancelParts = new AbortController();

  private constructor(
    readonly url: string,
    private readonly s3: S3,
    private readonly bucket: string,
    private readonly key: string,
    readonly uploadId: string,
    private readonly opts: StreamUploadOptions,
  ) {
    const wanted = Math.max(MIN_PART, opts.partSize ?? BASE_PART);
    this.base = opts.expectedBytes ? Math.max(wanted, Math.ceil(opts.expectedBytes / (MAX_PARTS - 1))) : wanted;
    this.current = Buffer.allocUnsafe(streamPartSize(2, this.base));
  }

  /**
   * Starts the multipart upload. The request is not cancelled by the signal (a cancelled
   * create may still have created an upload whose id we would never learn); the caller
   * checks the signal once it has the id, and can abort it.
   */
  static async create(url: string, opts: StreamUploadOptions = {}): Promise<S3StreamUpload> {
    const u = parseRemoteUrl(url);
    if (u.kind !== 's3') throw new RemoteError('REMOTE_BAD_URL', `${url}: writing is supported to s3:// URLs only`);
    const s3 = await s3Client();
    const created = await s3.client.send(new s3.sdk.CreateMultipartUploadCommand({ Bucket: u.bucket, Key: u.key })).catch((e: unknown) => {
      throw asFinal(s3Error(url, e));
    });
    if (!created.UploadId) throw new RemoteError('REMOTE_UPLOAD_FAILED', `${url}: the server gave no upload id`);
    return new S3StreamUpload(url, s3, u.bucket, u.key, created.UploadId, opts);
  }

  begin(keepEnd: number): void {
    if (this.keepEnd !== null) throw new Error('streamed upload: begin() called twice');
    this.keepEnd = keepEnd;
  }

  async append(bytes: Uint8Array): Promise<void> {
    this.check();
    for (let at = 0; at < bytes.byteLength;) {
      const n = Math.min(bytes.byteLength - at, this.current.byteLength - this.fill);
      this.current.set(bytes.subarray(at, at + n), this.fill);
      this.fill += n;
      at += n;
      this.streamed += n;
      if (this.fill === this.current.byteLength) await this.flushPart(false);
    }
  }

  /** Bytes streamed so far (after the kept head). */
  get bytesStreamed(): number {
    return this.streamed;
  }

  /**
   * After the write: sends what the stream has not (the local file's bytes after the
   * streamed ones: the tail, or all of it past the head when nothing could be streamed),
   * then the head as part 1. Every part is uploaded when this resolves.
   */
  async sendRest(localPath: string): Promise<void> {
    this.check();
    const fh = await open(localPath, 'r');
    try {
      const size = (await fh.stat()).size;
      // Nothing streamed during the write (its layout was known only at the end): the head is part 1's minimum.
      if (this.keepEnd === null) this.keepEnd = Math.min(size, this.headBytes);
      const keepEnd = Math.min(this.keepEnd, size);
      const buf = Buffer.allocUnsafe(4 << 20);
      for (let at = keepEnd + this.streamed; at < size;) {
        const { bytesRead } = await fh.read(buf, 0, Math.min(buf.byteLength, size - at), at);
        if (bytesRead <= 0) throw new RemoteError('REMOTE_UPLOAD_FAILED', `${this.url}: ${localPath} ended at byte ${at} of ${size}`);
        await this.append(buf.subarray(0, bytesRead));
        at += bytesRead;
      }
      if (this.fill > 0) await this.flushPart(true);
      await uploadPhase('head', this.opts.signal);
      this.check();
      const head = Buffer.allocUnsafe(keepEnd);
      for (let at = 0; at < keepEnd;) {
        const { bytesRead } = await fh.read(head, at, keepEnd - at, at);
        if (bytesRead <= 0) throw new RemoteError('REMOTE_UPLOAD_FAILED', `${this.url}: ${localPath} ended at byte ${at} of ${keepEnd}`);
        at += bytesRead;
      }
      this.check();
      this.launch(1, head);
      await this.drain(0);
      this.check();
    } finally {
      await fh.close();
    }
  }

  /** Completes the upload (not cancellable: once sent, only its answer says whether the object exists). */
  async complete(): Promise<void> {
    this.check();
    const parts = [...this.parts].sort((a, b) => a.PartNumber - b.PartNumber);
    const { client, sdk } = this.s3;
    await client
      .send(
        new sdk.CompleteMultipartUploadCommand({
          Bucket: this.bucket,
          Key: this.key,
          UploadId: this.uploadId,
          MultipartUpload: { Parts: parts.map(({ PartNumber, ETag }) => ({ PartNumber, ETag })) },
        }),
      )
      .catch((e: unknown) => {
        throw asFinal(s3Error(this.url, e));
      });
  }

  /** After `complete`: the object's size and (multipart-shaped) ETag are the file's. */
  async verify(size: number): Promise<string> {
    const { client, sdk } = this.s3;
    const head = await client
      .send(new sdk.HeadObjectCommand({ Bucket: this.bucket, Key: this.key }), { abortSignal: this.opts.signal })
      .catch((e: unknown) => {
        throw this.opts.signal?.aborted ? this.opts.signal.reason : asFinal(s3Error(this.url, e));
      });
    if (head.ContentLength !== size)
      throw new RemoteError(
        'REMOTE_COPY_MISMATCH',
        `${this.url}: the uploaded object has ${head.ContentLength} bytes, the build wrote ${size}`,
      );
    const etag = head.ETag ?? '';
    const parts = [...this.parts].sort((a, b) => a.PartNumber - b.PartNumber);
    const multipart = `"${createHash('md5')
      .update(Buffer.concat(parts.map((p) => p.md5)))
      .digest('hex')}-${parts.length}"`;
    // AWS: the MD5 of the parts' MD5s; s3rver and some MinIO modes: the whole MD5, which
    // part 1 being written last leaves unknown here: each part's ETag was checked instead.
    if (/^"[0-9a-f]{32}-\d+"$/.test(etag) && etag !== multipart)
      throw new RemoteError('REMOTE_COPY_MISMATCH', `${this.url}: the uploaded object's ETag ${etag} differs from the parts' ${multipart}`);
    return etag;
  }

  /**
   * Aborts the upload once no part request is in flight (a part still arriving after the
   * abort could bring the upload back). Never cancelled; true when the server confirmed.
   */
  async abort(): Promise<{ ok: boolean; reason?: string }> {
    this.aborted = true;
    // Parts in flight finish first (a signal does not cut them: a part cut mid-body may
    // still be stored by the server after the abort, bringing the upload back); past the
    // grace they are cancelled, and the abort is sent twice, as S3's documentation advises.
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<boolean>((r) => (timer = setTimeout(() => r(true), PART_GRACE_MS)));
    const cut = await Promise.race([this.drain(0).then(() => false), graceOver]);
    clearTimeout(timer);
    if (cut) {
      if (process.env['BETON_UPLOAD_TRACE'] === '1') process.stderr.write('beton: upload parts in flight cancelled\n');
      this.cancelParts.abort(new Error('cancelled by the abort'));
      await this.drain(0);
    }
    const first = await this.abortOnce();
    if (!cut || !first.ok) return first;
    await new Promise((r) => setTimeout(r, 1000));
    return this.abortOnce();
  }

  private async abortOnce(): Promise<{ ok: boolean; reason?: string }> {
    const { client, sdk } = this.s3;
    try {
      await client.send(new sdk.AbortMultipartUploadCommand({ Bucket: this.bucket, Key: this.key, UploadId: this.uploadId }));
      return { ok: true };
    } catch (e) {
      const err = e as Error & { name?: string };
      // Already gone (aborted before): nothing is left.
      if (err.name === 'NoSuchUpload') return { ok: true };
      return { ok: false, reason: `${err.name ?? 'Error'}: ${err.message}` };
    }
  }

  private check(): void {
    this.opts.signal?.throwIfAborted();
    if (this.failure !== null) throw this.failure;
    if (this.aborted) throw new RemoteError('REMOTE_UPLOAD_FAILED', `${this.url}: the upload was aborted`);
  }

  /** Sends the filled part (`last`: the final one, any size) and takes a fresh buffer. */
  private async flushPart(last: boolean): Promise<void> {
    const n = this.nextPart++;
    if (n > MAX_PARTS) throw new RemoteError('REMOTE_UPLOAD_FAILED', `${this.url}: the output needs more than ${MAX_PARTS} parts`);
    const body = this.fill === this.current.byteLength ? this.current : this.current.subarray(0, this.fill);
    await uploadPhase('part', this.opts.signal);
    this.check();
    this.launch(n, body);
    this.current = last ? Buffer.alloc(0) : Buffer.allocUnsafe(streamPartSize(this.nextPart, this.base));
    this.fill = 0;
    await this.drain((this.opts.concurrency ?? 4) - 1);
    this.check();
  }

  private launch(n: number, body: Buffer): void {
    const p = this.sendPart(n, body).then(
      (part) => {
        this.parts.push(part);
      },
      (e: unknown) => {
        this.failure ??= e;
      },
    );
    const tracked = p.finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
  }

  /** Waits until at most `max` part uploads are in flight. */
  private async drain(max: number): Promise<void> {
    while (this.inFlight.size > max) await Promise.race(this.inFlight);
  }

  private async sendPart(n: number, body: Buffer): Promise<Part> {
    const md5 = createHash('md5').update(body).digest();
    const { client, sdk } = this.s3;
    const signal = this.opts.signal;
    const attempts = maxAttempts();
    for (let attempt = 1; ; attempt++) {
      signal?.throwIfAborted();
      try {
        const r = await client.send(
          new sdk.UploadPartCommand({
            Bucket: this.bucket,
            Key: this.key,
            UploadId: this.uploadId,
            PartNumber: n,
            Body: body,
            ContentLength: body.byteLength,
          }),
          { abortSignal: this.cancelParts.signal },
        );
        const etag = r.ETag ?? '';
        // A part's ETag is its MD5 unless the bucket encrypts with KMS (then it is opaque).
        if (/^"[0-9a-f]{32}"$/.test(etag) && etag !== `"${md5.toString('hex')}"`)
          throw new RemoteError('REMOTE_COPY_MISMATCH', `${this.url}: part ${n} arrived as ${etag}, sent as "${md5.toString('hex')}"`);
        return { PartNumber: n, ETag: etag, md5 };
      } catch (e) {
        if (signal?.aborted) throw signal.reason;
        if (this.cancelParts.signal.aborted) throw this.cancelParts.signal.reason;
        const err = s3Error(this.url, e);
        if (!(err instanceof Transient) || attempt >= attempts) throw asFinal(err);
        await new Promise((r) => setTimeout(r, Math.min(2000, 100 * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2)));
      }
    }
  }
}

/**
 * Sends `attempt` up to BETON_REMOTE_ATTEMPTS times while it fails transiently (5xx,
 * throttling, resets), with backoff; a signal stops the attempts (its reason is thrown).
 */
export async function withAttempts<T>(url: string, signal: AbortSignal | undefined, attempt: () => Promise<T>): Promise<T> {
  const attempts = maxAttempts();
  for (let n = 1; ; n++) {
    signal?.throwIfAborted();
    try {
      return await attempt();
    } catch (e) {
      if (signal?.aborted) throw signal.reason;
      const err = s3Error(url, e);
      if (!(err instanceof Transient) || n >= attempts) throw asFinal(err);
      await new Promise((r) => setTimeout(r, Math.min(2000, 100 * 2 ** (n - 1)) * (0.5 + Math.random() / 2)));
    }
  }
}

function asFinal(e: Error): Error {
  return e instanceof Transient ? e.final : e;
}
