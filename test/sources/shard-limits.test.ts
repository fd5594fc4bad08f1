/**
 * Issue 29, items 3 and 6: a WebDataset shard's sizes are untrusted. A 14 MB .tar.gz with one
 * 3 GiB member made `build` peak at 12.7 GB over 94 s (and `--schema-only` at 9.6 GB); now the
 * member is refused from its header, in a bounded heap. A key holding the same extension
 * twice was kept silently (the last value stored); now it is an error naming shard and key.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { tarGroups, MAX_MEMBER_BYTES } from '../../core/sources/webdataset/tar-samples.js';
import { CLI, cli } from '../helpers/cli.js';
import { STACK_LINE } from '../helpers/cli-inputs.js';
import { gzipBomb, tarHeader, tarOf } from '../helpers/tar-bytes.js';

const dir = mkdtempSync(join(tmpdir(), 'shard-limits-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `beton ARGS` under /usr/bin/time: exit code, stderr, peak RSS (MB), seconds. */
async function timed(args: string[]): Promise<{ code: number; stderr: string; rssMb: number; s: number }> {
  const rss = join(dir, `rss-${Math.random()}.txt`);
  const t0 = performance.now();
  const r = await promisify(execFile)('/usr/bin/time', ['-o', rss, '-f', '%M', process.execPath, CLI, ...args], {
    timeout: 60_000,
    env: { ...process.env, BETON_DEBUG: '' },
  }).then(
    (o) => ({ code: 0, stderr: o.stderr }),
    (e: { code?: number; stderr?: string }) => ({ code: e.code ?? -1, stderr: e.stderr ?? '' }),
  );
  const rssMb = Number(readFileSync(rss, 'utf8').trim().split('\n').at(-1)) / 1024;
  return { ...r, rssMb, s: (performance.now() - t0) / 1000 };
}

describe('WebDataset shards: untrusted sizes (issue 29)', () => {
  const bomb = join(dir, 'bomb.tar.gz');
  writeFileSync(bomb, gzipBomb('000000.jpg', 3 * 1024 ** 3));

  for (const extra of [[], ['--schema-only']]) {
    it(`a gzip bomb (3 GiB member in ${Math.round(readFileSync(bomb).length / 1e6)} MB): build ${extra.join(' ')} refuses it in a bounded heap`, async () => {
      const r = await timed(['build', bomb, ...(extra.length ? extra : ['-o', join(dir, 'bomb.beton')])]);
      console.log(
        `gzip bomb ${extra.join(' ') || 'build'}: exit ${r.code}, ${r.s.toFixed(1)} s, peak RSS ${Math.round(r.rssMb)} MB: ${r.stderr.trim()}`,
      );
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/member 000000\.jpg holds 3221225472 bytes, more than the 536870912 a member may/);
      expect(r.stderr).not.toMatch(STACK_LINE);
      expect(r.rssMb).toBeLessThan(400);
    }, 70_000);
  }

  it('bytes are counted as they stream: a member is never gathered past the limit', async () => {
    // A plain tar declaring a member just over the limit, the data cut short: refused before any is read.
    const f = join(dir, 'declared.tar');
    writeFileSync(f, Buffer.concat([tarHeader('a.bin', MAX_MEMBER_BYTES + 1), Buffer.alloc(4096)]));
    await expect(async () => {
      for await (const _ of tarGroups(f)) void _;
    }).rejects.toThrow(/member a\.bin holds 536870913 bytes/);
  });

  it('a key with the same extension twice is an error naming the shard and the key', () => {
    const f = join(dir, 'dup.tar');
    writeFileSync(
      f,
      tarOf([
        ['a.cls', '1'],
        ['a.cls', '7'],
        ['b.cls', '2'],
      ]),
    );
    const r = cli(['build', f, '-o', join(dir, 'dup.beton')], { timeoutMs: 60_000 });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(`${f}: key a: member a.cls repeats extension .cls of the same key`);
    expect(r.stderr).not.toMatch(STACK_LINE);
  }, 70_000);
});
