import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { uploadFile } from '../../core/remote/s3-upload.js';
import { cliInProcess } from '../helpers/cli-in-process.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { killS3Build } from '../helpers/killed-s3-build.js';
import { remoteTestFile } from '../helpers/remote-test-file.js';

/*
 * Builds and copies to s3:// run the CLI in this process (core/cli/main.ts); a signal needs a
 * process: the SIGTERM case spawns one (the SIGKILL case is in remote-write-sigkill, slow tier).
 */
const f = remoteTestFile(['out']);
const dir = f.dir;

/** `beton ARGS` in this process (process.env holds the servers' environment). */
async function beton(...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  const r = await cliInProcess(...args);
  return { status: r.code, stdout: r.out, stderr: r.err };
}

describe('writing to s3://', () => {
  it('beton build -o s3://… uploads the bytes of the local build; beton cp brings them back checked', async () => {
    const src = join(FIXTURES, 'src_images');
    const local = join(dir, 'local.beton');
    // Encoding in this thread (--workers 0): an encoder thread's start is not what is tested.
    const a = await beton('build', src, '-o', local, '--workers', '0');
    expect(a.status, String(a.stderr)).toBe(0);
    const b = await beton('build', src, '-o', 's3://out/sets/remote.beton', '--workers', '0');
    expect(b.status, String(b.stderr)).toBe(0);
    expect(b.stderr).not.toMatch(/Warning/);
    const obj = await f.srv.get('out', 'sets/remote.beton');
    expect(obj).not.toBeNull();
    expect(Buffer.from(obj!).equals(readFileSync(local))).toBe(true);
    const back = join(dir, 'back.beton');
    const c = await beton('cp', 's3://out/sets/remote.beton', back);
    expect(c.status, String(c.stderr)).toBe(0);
    expect(c.stdout).toMatch(/checked/);
    expect(readFileSync(back).equals(readFileSync(local))).toBe(true);
    const d = await beton('cp', local, 's3://out/copied.beton');
    expect(d.status, String(d.stderr)).toBe(0);
    expect(Buffer.from((await f.srv.get('out', 'copied.beton'))!).equals(readFileSync(local))).toBe(true);
  }, 120_000);

  it('a multipart upload of several parts is byte-identical; an aborted one leaves no object', async () => {
    const big = join(dir, 'big.bin');
    const bytes = new Uint8Array(12 * 2 ** 20 + 12345);
    for (let i = 0; i < bytes.length; i += 4096) bytes[i] = (i >> 12) & 255;
    writeFileSync(big, bytes);
    await uploadFile(big, 's3://out/big.bin', { partSize: 5 * 2 ** 20 });
    expect(Buffer.from((await f.srv.get('out', 'big.bin'))!).equals(Buffer.from(bytes))).toBe(true);
    const ac = new AbortController();
    const p = uploadFile(big, 's3://out/aborted.bin', {
      partSize: 5 * 2 ** 20,
      concurrency: 1,
      signal: ac.signal,
      onProgress: () => ac.abort(),
    });
    await expect(p).rejects.toThrow();
    expect(await f.srv.get('out', 'aborted.bin')).toBeNull();
  }, 120_000);

  it('a build killed with SIGTERM leaves no object at the key, and nothing in its TMPDIR', async () => {
    const tmp = await killS3Build(dir, { ...process.env }, 'SIGTERM', 's3://out/killed-SIGTERM.beton');
    expect(await f.srv.get('out', 'killed-SIGTERM.beton')).toBeNull();
    expect(await f.srv.list('out')).not.toContain('killed-SIGTERM.beton');
    expect(existsSync(tmp) && readdirSync(tmp)).toEqual([]);
  }, 120_000);
});
