import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BytesField } from '../../core/fields/bytes-field.js';
import { IntField } from '../../core/fields/int-field.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';
import { cliInProcess } from '../helpers/cli-in-process.js';
import { startFileRangeServer, type FileRangeServer } from '../helpers/file-range-server.js';
import { spreadPages } from '../helpers/sparse-beton.js';

/*
 * Issue 28, "2 GiB remote pages cost 10–12 GB RSS": a remote reader fetches a window of a
 * large page (8 MiB), not the page, keeps windows up to a budget in bytes, and the fetch
 * thread reads bodies straight into the shared buffer. A 33 GiB sparse .beton of 2^31-byte
 * pages, served from disk over loopback, is dumped by a CLI child under /usr/bin/time (the
 * local dump it is compared with runs in this process). The merge of s3:// inputs read in
 * place is in remote-cli.test.ts, beside the other merges over URLs.
 */
const BETON = resolve(__dirname, '../../bin/beton.js');
const dir = mkdtempSync(join(tmpdir(), 'beton-remote-mem-'));
const N = 24;
const BLOB = 20_000;
const blobOf = (i: number): Uint8Array => Uint8Array.from({ length: BLOB }, (_, j) => (i * 37 + j * 11 + (j >> 8)) & 255);
/** The peak RSS a dump of this file may reach (a local dump of a small file is about 60 MB). */
const BOUND_KB = 400 * 1024;
let small: string;
let big: string;
let server: FileRangeServer;

beforeAll(async () => {
  small = join(dir, 'small.beton');
  big = join(dir, 'pages-2-31.beton');
  // 20 kB blobs on 64 KiB pages (3 samples a page, 8 pages), moved onto 2 GiB pages 0, 2, 4, …
  await new DatasetWriter(
    small,
    { blob: new BytesField(), label: new IntField() },
    { numWorkers: 0, pageSize: 2 ** 16, allowSmallPages: true },
  ).write(Array.from({ length: N }, (_, i) => ({ blob: blobOf(i), label: 1000 + i })));
  spreadPages(small, big, { pageSize: 2 ** 31, place: (k) => 2 * k });
  server = await startFileRangeServer({ 'small.beton': small, 'big.beton': big });
}, 60_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the CLI under /usr/bin/time without blocking this process (the server answers from it). */
function timed(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string; kb: number }> {
  return new Promise((done) => {
    const child = spawn('timeout', ['-k', '5', '120', '/usr/bin/time', '-f', 'maxrss_kb=%M', process.execPath, BETON, ...args], {
      env: { ...process.env, BETON_REMOTE_TIMEOUT_MS: '30000', ...env },
      cwd: dir,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => done({ code, stdout, stderr, kb: Number(/maxrss_kb=(\d+)/.exec(stderr)?.[1]) }));
  });
}

const samplesOf = (dump: string): string => dump.slice(dump.indexOf('"samples"'));

describe('large remote pages', () => {
  it('a file of 2 GiB pages dumps over HTTP with a bounded peak RSS and fetches windows, not pages', async () => {
    expect(statSync(big).size).toBeGreaterThan(32 * 2 ** 30);
    const local = await cliInProcess('dump', small);
    expect(local.code, local.err).toBe(0);
    // Default budget (prefetched windows), then a budget of one window (each read through
    // the blocking fetch thread and its shared buffer).
    for (const keep of ['64', '8']) {
      const before = server.sent();
      const r = await timed(['dump', `${server.origin}/big.beton`], { BETON_REMOTE_KEEP_MB: keep });
      expect(r.code, r.stderr).toBe(0);
      expect(samplesOf(r.stdout)).toBe(samplesOf(local.out));
      expect(r.stdout).toContain(`"page_size":${2 ** 31}`);
      expect(r.kb, `peak RSS with BETON_REMOTE_KEEP_MB=${keep}`).toBeGreaterThan(0);
      expect(r.kb, `peak RSS with BETON_REMOTE_KEEP_MB=${keep}`).toBeLessThan(BOUND_KB);
      // 8 data pages: one 8 MiB window each, plus the open (8 MiB before the first page,
      // whose start is 2 GiB in, and the table). Whole pages would be 16 GiB, and the open 2 GiB.
      const sent = server.sent().bytes - before.bytes;
      expect(sent).toBeLessThan(9 * 8 * 2 ** 20 + 2 ** 20);
    }
  }, 180_000);
});
