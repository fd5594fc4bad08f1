// Issue 19 item 8: fields named like Object.prototype members (toString, constructor,
// __proto__, hasOwnProperty, valueOf) from CSV headers and JSONL keys build, and read back
// with beton's Reader, its Loader and the real FFCV: no map keyed by a user's name looks
// up the prototype (core/format/own-keys.ts). That the real FFCV reads them too (python3) is
// prototype-names-ffcv.test.ts, slow tier. The builds run in-process (core/cli/main.ts).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Reader } from '../../core/reader/reader.js';
import { Loader } from '../../core/loader/loader.js';
import { cliInProcess } from '../helpers/cli-in-process.js';
import { ownValue, setOwn } from '../../core/format/own-keys.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-proto-'));
const NAMES = ['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf'];
const csv = join(dir, 'p.csv');
const jsonl = join(dir, 'p.jsonl');

beforeAll(async () => {
  writeFileSync(csv, `${NAMES.join(',')}\n1,2,3,4,5\n6,7,8,9,10\n`);
  writeFileSync(
    jsonl,
    '{"toString":1,"constructor":2,"__proto__":3,"valueOf":{"__proto__":1}}\n{"toString":4,"constructor":5,"__proto__":6,"valueOf":{"__proto__":2}}\n',
  );
  for (const src of [csv, jsonl]) {
    const r = await cliInProcess('build', src, '-o', `${src}.beton`);
    if (r.code !== 0) throw new Error(r.err);
  }
}, 130_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('fields named like prototype members', () => {
  it('own-keys: a missing key is undefined, __proto__ is a plain entry', () => {
    const o: Record<string, number> = {};
    expect(ownValue(o, 'toString')).toBeUndefined();
    setOwn(o, '__proto__', 7);
    expect(Object.keys(o)).toEqual(['__proto__']);
    expect(ownValue(o, '__proto__')).toBe(7);
  });

  it('a CSV with those headers builds and the Reader reads every value back', async () => {
    const r = await Reader.open(`${csv}.beton`);
    try {
      expect(r.fields.map((f) => f.name)).toEqual(NAMES);
      const s = r.read(1);
      expect(Object.keys(s)).toEqual(NAMES);
      expect(NAMES.map((n) => Number(ownValue(s, n)))).toEqual([6, 7, 8, 9, 10]);
    } finally {
      r.close();
    }
  });

  it('a JSONL with those keys (nested __proto__ too) builds and reads back', async () => {
    const r = await Reader.open(`${jsonl}.beton`);
    try {
      const s = r.read(0);
      expect(Number(ownValue(s, '__proto__'))).toBe(3);
      expect(Number(ownValue(s, 'constructor'))).toBe(2);
      const nested = ownValue(s, 'valueOf');
      expect(JSON.stringify(nested)).toBe('{"__proto__":1}');
    } finally {
      r.close();
    }
  });

  it('the Loader batches them under their own names', async () => {
    const loader = await Loader.open(`${csv}.beton`, { batchSize: 2, numWorkers: 1 });
    try {
      for await (const b of loader) {
        expect(NAMES.map((n) => Array.from(b.get(n).data as ArrayLike<number | bigint>, Number))).toEqual([
          [1, 6],
          [2, 7],
          [3, 8],
          [4, 9],
          [5, 10],
        ]);
      }
    } finally {
      await loader.close();
    }
  }, 30_000);
});
