// Seeded fuzz families for issue 19 (kept in CI, bounded: ~20 s on 2 cores):
//   - prototype names: random schemas mixing Object.prototype member names (toString,
//     constructor, __proto__, …) with ordinary ones, as CSV headers and JSONL keys; each builds
//     and reads back exactly (safe maps, core/format/own-keys.ts);
//   - FIFOs: a named pipe given to every input opener (table formats, .beton, sources),
//     each must refuse it (NOT_A_FILE) within the test's timeout, never block;
//   - hostile field subclasses: random subclasses of the built-in fields (overriding encode,
//     throwing, or an instance-level encode); with workers each is refused (BAD_SCHEMA),
//     without workers its own encode is what runs.
// BETON_FUZZ_SEED=S picks another seed; BETON_FUZZ_ITERATIONS=N more cases per family.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { EncodedValue, Field } from '../../core/fields/field.js';
import { BytesField } from '../../core/fields/bytes-field.js';
import { FloatField } from '../../core/fields/float-field.js';
import { IntField } from '../../core/fields/int-field.js';
import { JSONField } from '../../core/fields/json-field.js';
import { ownValue } from '../../core/format/own-keys.js';
import { Reader } from '../../core/reader/reader.js';
import { openSource } from '../../core/sources/open-source.js';
import { openTableReader } from '../../core/sources/tables/open-table.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';
import type { FieldConfig } from '../../core/api/build-config.js';
import { toNamedFields } from '../../core/app/build.js';
import { mulberry32 as rng } from '../helpers/mulberry32.js';

const SEED = Number(process.env.BETON_FUZZ_SEED ?? 19);
const ITER = Number(process.env.BETON_FUZZ_ITERATIONS ?? 12);
const dir = mkdtempSync(join(tmpdir(), 'beton-fuzz19-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
process.stderr.write(`fuzz-hostile-inputs: seed ${SEED}, ${ITER} cases per family\n`);

const PROTO = Object.getOwnPropertyNames(Object.prototype).filter((n) => n.length <= 16);
const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

describe('fuzz: prototype names as field names', () => {
  it(`${ITER} random schemas build and read back (CSV and JSONL)`, async () => {
    const r = rng(SEED);
    for (let k = 0; k < ITER; k++) {
      const names = new Set<string>();
      const n = 1 + Math.floor(r() * 5);
      while (names.size < n) names.add(r() < 0.7 ? pick(r, PROTO) : `c${Math.floor(r() * 100)}`);
      const cols = [...names];
      const rows = Array.from({ length: 1 + Math.floor(r() * 4) }, () => cols.map(() => Math.floor(r() * 1000)));
      const jsonl = k % 2 === 1;
      const src = join(dir, `p${k}.${jsonl ? 'jsonl' : 'csv'}`);
      writeFileSync(
        src,
        jsonl
          ? rows.map((row) => `{${cols.map((c, i) => `${JSON.stringify(c)}:${row[i]}`).join(',')}}`).join('\n') + '\n'
          : `${cols.join(',')}\n${rows.map((row) => row.join(',')).join('\n')}\n`,
      );
      const source = await openSource({ type: 'table', path: src } as never, dir);
      const fields = (await source.detectSchema()) as FieldConfig[];
      const out = join(dir, `p${k}.beton`);
      const samples: unknown[] = [];
      for await (const s of source.samples(fields)) samples.push(s);
      await new DatasetWriter(out, toNamedFields(fields), { numWorkers: 0 }).write(samples as never);
      const reader = await Reader.open(out);
      try {
        expect(
          reader.fields.map((f) => f.name),
          `case ${k}: ${cols.join(',')}`,
        ).toEqual(cols);
        rows.forEach((row, i) => {
          const got = reader.read(i);
          expect(
            cols.map((c) => Number(ownValue(got, c))),
            `case ${k} row ${i}`,
          ).toEqual(row);
        });
      } finally {
        reader.close();
      }
    }
  }, 60_000);
});

describe('fuzz: named pipes at every input opener', () => {
  const openers: Array<[string, (p: string) => Promise<unknown>]> = [
    ...(['csv', 'tsv', 'jsonl', 'parquet', 'npy', 'npz'] as const).map((f): [string, (p: string) => Promise<unknown>] => [
      `openTableReader ${f}`,
      (p) => openTableReader(p, f as never),
    ]),
    ['Reader.open', (p) => Reader.open(p)],
    ['openSource table', (p) => openSource({ type: 'table', path: p } as never, dir)],
    ['openSource image_list', (p) => openSource({ type: 'image_list', path: p, imageColumn: 'x' } as never, dir)],
  ];
  for (const [name, open] of openers) {
    it(`${name}: NOT_A_FILE, at once`, async () => {
      const fifo = join(dir, `fifo-${name.replace(/\W+/g, '_')}`);
      execFileSync('mkfifo', [fifo]);
      const err = await open(fifo).then(
        () => null,
        (e: Error & { code?: string }) => e,
      );
      expect(err?.code, String(err)).toBe('NOT_A_FILE');
    }, 10_000);
  }
});

describe('fuzz: hostile field subclasses', () => {
  it(`${ITER} random subclasses: refused with workers, their own encode without`, async () => {
    const r = rng(SEED + 1);
    const bases: Array<[() => Field, unknown]> = [
      [() => new IntField(), 3],
      [() => new FloatField(), 1.5],
      [() => new BytesField(), new Uint8Array([1, 2])],
      [() => new JSONField(), { a: 1 }],
    ];
    for (let k = 0; k < ITER; k++) {
      const [make, value] = pick(r, bases);
      const base = make();
      const mode = pick(r, ['override', 'throw', 'instance'] as const);
      const marker = `hostile-${k}`;
      let field: Field;
      if (mode === 'instance') {
        field = make();
        (field as unknown as { encode: (v: unknown) => EncodedValue }).encode = () => {
          throw new Error(marker);
        };
      } else {
        // Typed as IntField for the compiler; at run time it is whichever built-in was picked.
        const Base = base.constructor as new () => IntField;
        const Sub = class extends Base {
          override encode(v: unknown): EncodedValue {
            if (mode === 'throw') throw new Error(marker);
            return super.encode(v);
          }
        };
        field = new Sub();
      }
      // The constructor refuses (synchronously): wrapped so either way is a rejection.
      const withWorkers = await (async () =>
        new DatasetWriter(join(dir, `h${k}w.beton`), { f: field }, { numWorkers: 1 }).write([{ f: value }]))().then(
        () => null,
        (e: Error & { code?: string }) => e,
      );
      expect(withWorkers?.code, `case ${k} (${mode} ${base.type})`).toBe('BAD_SCHEMA');
      const without = await new DatasetWriter(join(dir, `h${k}.beton`), { f: field }, { numWorkers: 0 }).write([{ f: value }]).then(
        () => null,
        (e: Error) => e,
      );
      if (mode === 'override') expect(without, `case ${k}`).toBeNull();
      else expect(without?.message, `case ${k}`).toContain(marker);
    }
  }, 60_000);
});
