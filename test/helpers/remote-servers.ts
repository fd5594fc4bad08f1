import { readFileSync } from 'node:fs';
import type { Worker } from 'node:worker_threads';
import { spawnWorker } from '../../core/workers/spawn-worker.js';

/** A fault the servers inject: on ranged reads from byte `minStart` on, `times` times (-1: always). */
export interface FaultRule {
  /** 'shifted' (HTTP range server only): a well-formed 206 of the asked length for the range one byte later. */
  fault: 'ok' | 'status500' | 'status403' | 'stall' | 'reset' | 'truncate' | 'long206' | 'early206' | 'endless206' | 'shifted';
  minStart: number;
  times: number;
}

export type ServerCall =
  | { op: 'file'; name: string; bytes: Uint8Array }
  | { op: 'fault'; rule: FaultRule }
  | { op: 'requests' }
  | { op: 'served' }
  | { op: 'stop' };

/**
 * Servers the remote tests run against, on loopback, started by the tests in a worker
 * thread (remote-servers-worker.ts): s3rver (an S3 API server in Node, a devDependency),
 * a fault-injecting proxy in front of it, and an HTTP range server with the same faults.
 */
export interface RemoteServers {
  /** s3rver itself. */
  s3: string;
  /** The fault proxy in front of s3rver. */
  proxy: string;
  /** The HTTP range server: files at /<name>. */
  http: string;
  /** Environment for the SDK's standard configuration (S3 through `endpoint`). */
  env(endpoint?: string): Record<string, string>;
  put(bucket: string, key: string, body: Uint8Array): Promise<void>;
  get(bucket: string, key: string): Promise<Uint8Array | null>;
  list(bucket: string): Promise<string[]>;
  /** The bucket's multipart uploads left (ListMultipartUploads, answered by the proxy: s3rver lacks it). */
  uploads(bucket: string, prefix?: string): Promise<number>;
  serve(name: string, bytes: Uint8Array): Promise<void>;
  fault(rule: FaultRule): Promise<void>;
  requests(): Promise<number>;
  /** Every range the HTTP range server has sent so far, [start, end] inclusive. */
  served(): Promise<Array<[number, number]>>;
  stop(): Promise<void>;
}

export async function startServers(buckets: string[]): Promise<RemoteServers> {
  const w: Worker = spawnWorker('./remote-servers-worker.js', import.meta.url, { buckets });
  let next = 1;
  const waiting = new Map<number, (v: unknown) => void>();
  let ready!: (v: unknown) => void;
  const started = new Promise((r) => (ready = r));
  waiting.set(0, ready);
  w.on('message', (m: { id: number; result: unknown }) => {
    waiting.get(m.id)?.(m.result);
    waiting.delete(m.id);
  });
  const call = (c: ServerCall): Promise<unknown> =>
    new Promise((r) => {
      const id = next++;
      waiting.set(id, r);
      w.postMessage({ ...c, id });
    });
  const urls = (await started) as { s3: string; proxy: string; http: string };
  const env = (endpoint = urls.s3): Record<string, string> => ({
    AWS_ENDPOINT_URL_S3: endpoint,
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    AWS_REGION: 'us-east-1',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  });
  // The SDK's Node 20 deprecation notice is noise in test output.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const sdk = await import('@aws-sdk/client-s3');
  const client = new sdk.S3Client({
    endpoint: urls.s3,
    forcePathStyle: true,
    region: 'us-east-1',
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  const viaProxy = new sdk.S3Client({
    endpoint: urls.proxy,
    forcePathStyle: true,
    region: 'us-east-1',
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  return {
    ...urls,
    env,
    put: async (Bucket, Key, Body) => {
      await client.send(new sdk.PutObjectCommand({ Bucket, Key, Body }));
    },
    get: async (Bucket, Key) => {
      try {
        const r = await client.send(new sdk.GetObjectCommand({ Bucket, Key }));
        return await r.Body!.transformToByteArray();
      } catch {
        return null;
      }
    },
    list: async (Bucket) => ((await client.send(new sdk.ListObjectsV2Command({ Bucket }))).Contents ?? []).map((o) => o.Key!),
    uploads: async (Bucket, Prefix) =>
      ((await viaProxy.send(new sdk.ListMultipartUploadsCommand({ Bucket, ...(Prefix ? { Prefix } : {}) }))).Uploads ?? []).length,
    serve: async (name, bytes) => void (await call({ op: 'file', name, bytes })),
    fault: async (rule) => void (await call({ op: 'fault', rule })),
    requests: async () => (await call({ op: 'requests' })) as number,
    served: async () => (await call({ op: 'served' })) as Array<[number, number]>,
    stop: async () => {
      client.destroy();
      viaProxy.destroy();
      await call({ op: 'stop' });
      await w.terminate();
    },
  };
}

export const fileBytes = (p: string): Uint8Array => new Uint8Array(readFileSync(p));
