import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadFile } from '../../core/remote/s3-upload.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { startServers, type RemoteServers } from '../helpers/remote-servers.js';

const BETON = resolve(__dirname, '../../bin/beton.js');
const dir = mkdtempSync(join(tmpdir(), 'beton-remote-write-'));
let srv: RemoteServers;
let env: NodeJS.ProcessEnv;
const saved = { ...process.env };

beforeAll(async () => {
  srv = await startServers(['out']);
  env = { ...process.env, ...srv.env() };
  Object.assign(process.env, srv.env());
}, 60_000);

afterAll(async () => {
  process.env = saved;
  await srv?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const beton = (...args: string[]): ReturnType<typeof spawnSync> =>
  spawnSync('timeout', ['-k', '5', '120', process.execPath, BETON, ...args], { env, encoding: 'utf8', cwd: dir });

describe('writing to s3://', () => {
  it('beton build -o s3://… uploads the bytes of the local build; beton cp brings them back checked', async () => {
    const src = join(FIXTURES, 'src_images');
    const local = join(dir, 'local.beton');
    const a = beton('build', src, '-o', local, '--workers', '1');
    expect(a.status, String(a.stderr)).toBe(0);
    const b = beton('build', src, '-o', 's3://out/sets/remote.beton', '--workers', '1');
    expect(b.status, String(b.stderr)).toBe(0);
    expect(b.stderr).not.toMatch(/Warning/);
    const obj = await srv.get('out', 'sets/remote.beton');
    expect(obj).not.toBeNull();
    expect(Buffer.from(obj!).equals(readFileSync(local))).toBe(true);
    const back = join(dir, 'back.beton');
    const c = beton('cp', 's3://out/sets/remote.beton', back);
    expect(c.status, String(c.stderr)).toBe(0);
    expect(c.stdout).toMatch(/checked/);
    expect(readFileSync(back).equals(readFileSync(local))).toBe(true);
    const d = beton('cp', local, 's3://out/copied.beton');
    expect(d.status, String(d.stderr)).toBe(0);
    expect(Buffer.from((await srv.get('out', 'copied.beton'))!).equals(readFileSync(local))).toBe(true);
  }, 120_000);

  it('a multipart upload of several parts is byte-identical; an aborted one leaves no object', async () => {
    const big = join(dir, 'big.bin');
    const bytes = new Uint8Array(12 * 2 ** 20 + 12345);
    for (let i = 0; i < bytes.length; i += 4096) bytes[i] = (i >> 12) & 255;
    writeFileSync(big, bytes);
    await uploadFile(big, 's3://out/big.bin', { partSize: 5 * 2 ** 20 });
    expect(Buffer.from((await srv.get('out', 'big.bin'))!).equals(Buffer.from(bytes))).toBe(true);
    const ac = new AbortController();
    const p = uploadFile(big, 's3://out/aborted.bin', {
      partSize: 5 * 2 ** 20,
      concurrency: 1,
      signal: ac.signal,
      onProgress: () => ac.abort(),
    });
    await expect(p).rejects.toThrow();
    expect(await srv.get('out', 'aborted.bin')).toBeNull();
  }, 120_000);

  for (const sig of ['SIGKILL', 'SIGTERM'] as const) {
    it(`a build killed with ${sig} leaves no object at the key`, async () => {
      // A CSV large enough that the build is still running when it is killed.
      const csv = join(dir, `rows-${sig}.csv`);
      writeFileSync(csv, 'a,b\n' + Array.from({ length: 400_000 }, (_, i) => `${i},${i / 7}`).join('\n') + '\n');
      const tmp = join(dir, `tmp-${sig}`);
      mkdirSync(tmp);
      const child = spawn('timeout', ['-k', '5', '120', process.execPath, BETON, 'build', csv, '-o', `s3://out/killed-${sig}.beton`], {
        env: { ...env, TMPDIR: tmp },
        stdio: 'ignore',
      });
      const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
      // Kill once the build has started writing in its temporary folder.
      const t0 = Date.now();
      while (Date.now() - t0 < 60_000 && !readdirSync(tmp).some((d) => readdirSync(join(tmp, d)).length > 0))
        await new Promise((r) => setTimeout(r, 20));
      // The node process under `timeout` (never pid 0: that would signal our own group).
      const node = Number(
        spawnSync('pgrep', ['-P', String(child.pid)], { encoding: 'utf8' })
          .stdout.trim()
          .split('\n')[0],
      );
      process.kill(Number.isInteger(node) && node > 0 ? node : child.pid!, sig);
      await exited;
      expect(await srv.get('out', `killed-${sig}.beton`)).toBeNull();
      expect(await srv.list('out')).not.toContain(`killed-${sig}.beton`);
      if (sig === 'SIGTERM') expect(existsSync(tmp) && readdirSync(tmp)).toEqual([]);
    }, 120_000);
  }
});
