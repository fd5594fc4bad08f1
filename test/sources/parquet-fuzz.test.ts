// Issue 19 item 14 follow-up: random byte flips in a Parquet file once made hyparquet spin
// forever (a data page v2 header without its level lengths set the read offset to NaN). Every
// mutant must now open and read, or fail with a coded BetonError, fast. The mutants run in a
// child process against dist/ so a hang is a failed test (killed at the timeout), not a
// stuck vitest worker (a synchronous loop never yields to vitest's own timeout).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parquetWriteFile } from 'hyparquet-writer';
import { afterAll, describe, expect, it } from 'vitest';
import { requires } from '../helpers/requires.js';

const LIB = resolve(__dirname, '../../dist/core/sources/parquet/parquet-source.js');
const SEED = Number(process.env.BETON_FUZZ_SEED ?? 20261126) >>> 0;
const MUTANTS = Math.max(1, Number(process.env.BETON_FUZZ_ITERATIONS ?? 800));
const dir = mkdtempSync(join(tmpdir(), 'beton-pq-fuzz-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes the mutants, reads each in one child; returns one line per mutant (`k ok` / `k CODE message`). */
function runMutants(files: string[]): { lines: string[]; status: number | null; stderr: string } {
  const script = `
import { ParquetTable } from ${JSON.stringify(LIB)};
for (const [k, p] of ${JSON.stringify(files)}.entries()) {
  try {
    const t = await ParquetTable.open(p);
    for await (const _ of t.rows({ start: 0, end: t.length }, t.columns.map((_, c) => c))) void _;
    console.log(k + ' ok');
  } catch (e) {
    console.log(k + ' ' + (e.code ?? 'UNCODED') + ' ' + String(e.message).split('\\n')[0]);
  }
}`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 60_000,
    killSignal: 'SIGKILL',
  });
  return { lines: r.stdout.trim().split('\n').filter(Boolean), status: r.status, stderr: r.stderr };
}

describe.skipIf(!requires('a built dist/', 'npm run build:ts', existsSync(LIB)))('seeded Parquet byte-flip fuzz', () => {
  const base = join(dir, 'base.parquet');
  const n = 40;
  parquetWriteFile({
    filename: base,
    columnData: [
      { name: 'i', data: Int32Array.from({ length: n }, (_, k) => k), type: 'INT32' },
      { name: 's', data: Array.from({ length: n }, (_, k) => `s${k}`), type: 'STRING' },
      { name: 'f', data: Float64Array.from({ length: n }, (_, k) => k / 3), type: 'DOUBLE' },
    ],
    rowGroupSize: 16,
  });
  const bytes = readFileSync(base);

  it('the mutant that hung: a clear BAD_VALUE at once', () => {
    // Byte 18 sits in the first data page v2 header: 230 there drops its repetition-levels length.
    const b = Buffer.from(bytes);
    b[18] = 230;
    const p = join(dir, 'hung.parquet');
    writeFileSync(p, b);
    const r = runMutants([p]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.lines).toEqual([
      expect.stringMatching(/^0 BAD_VALUE .*hung\.parquet: row group 0: column "i": data page v2 at byte 4 .*damaged/),
    ]);
  }, 90_000);

  it(`${MUTANTS} random mutants: each reads or fails with a code, none hangs`, () => {
    let a = SEED;
    const rnd = (): number => {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = Math.imul(a ^ (a >>> 15), a | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
    };
    const files: string[] = [];
    for (let m = 0; m < MUTANTS; m++) {
      const b = Buffer.from(bytes);
      const flips = 1 + Math.floor(rnd() * 4);
      for (let j = 0; j < flips; j++) b[Math.floor(rnd() * b.length)] = Math.floor(rnd() * 256);
      const p = join(dir, `m${m}.parquet`);
      writeFileSync(p, b);
      files.push(p);
    }
    const r = runMutants(files);
    // A hang is killed (status null): the last line names the mutant before the one that hung.
    expect(r.status, `child killed after mutant ${r.lines.at(-1)}; seed ${SEED}`).toBe(0);
    expect(r.lines).toHaveLength(MUTANTS);
    expect(r.lines.filter((l) => / UNCODED /.test(l))).toEqual([]);
  }, 120_000);
});
