// The .beton format against the real FFCV, both ways, on random schemas (format-gen.ts):
// FFCV writes → our Reader returns exactly what FFCV's reader returns (and what went in);
// we write → FFCV's reader returns exactly what ours does (and what went in); and with the
// same inputs and page size, our file is FFCV's file byte for byte.
//
// Reproduce a failure: BETON_INTEROP_SEED=<seed> npx vitest run test/interop/format-roundtrip.test.ts
// More schemas: BETON_INTEROP_SCHEMAS=200 (schema k is the same whatever the count).
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { canonicalSample } from '../../core/reader/canonical.js';
import { Reader } from '../../core/reader/reader.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';
import { describeFfcv, runFfcv } from './ffcv.js';
import {
  describeSchema,
  emptySchema,
  expectedCanonical,
  generateSchema,
  loaderSchema,
  ourField,
  ourSample,
  pythonWriteJob,
  VARIANTS,
  type GenSchema,
} from './format-gen.js';

const DEFAULT_SEED = 20240506;
const SEED = Number(process.env.BETON_INTEROP_SEED ?? DEFAULT_SEED);
// Never fewer than one schema per variant: every run covers every type, dtype and write mode.
const COUNT = Math.max(VARIANTS.length, Number(process.env.BETON_INTEROP_SCHEMAS ?? 0));
if (!Number.isSafeInteger(SEED) || !Number.isSafeInteger(COUNT))
  throw new Error('BETON_INTEROP_SEED and BETON_INTEROP_SCHEMAS must be integers');
const REPRO = `BETON_INTEROP_SEED=${SEED}${process.env.BETON_INTEROP_SCHEMAS ? ` BETON_INTEROP_SCHEMAS=${COUNT}` : ''} npx vitest run test/interop/format-roundtrip.test.ts`;

type Canonical = Record<string, unknown>;

interface FfcvField {
  name: string;
  type_id: number;
  handler: string;
  dtype?: string;
  shape?: number[];
}

interface FfcvDump {
  error?: string;
  header: { num_samples: number; page_size: number; alloc_table_ptr: number; alloc_entries: number; fields: FfcvField[] };
  samples: Canonical[];
  heap_objects: number;
  lookup_mismatches: Array<{ sample: number; field: string; ffcv_size: number | null; size: number; shared_with_empty: boolean }>;
}

interface PythonResult {
  written: Record<string, { sha256: string; size: number; seconds: number }>;
  read: Record<string, FfcvDump>;
  loaded: Record<string, { error?: string; samples: Canonical[] }>;
  seconds: { write: number; read: number; load: number };
}

interface Case {
  schema: GenSchema;
  ours: string;
  ffcv: string | null;
  /** Also read through FFCV's Loader, with os_cache as given. */
  loader?: { osCache: boolean };
}

const TYPE_IDS: Record<string, number> = { float: 0, int: 1, rgb: 2, bytes: 3, ndarray: 4, json: 5, torch: 6 };

/** Floats compare by bits; Python's repr of NaN/inf ('nan') differs from ours ('NaN') by design. */
function comparable(sample: Canonical): Canonical {
  const out: Canonical = {};
  for (const [k, v] of Object.entries(sample)) {
    if (v && typeof v === 'object' && 'f64_bits' in v) {
      const bits = (v as { f64_bits: string }).f64_bits;
      const finite = (parseInt(bits.slice(0, 3), 16) & 0x7ff) !== 0x7ff;
      out[k] = finite ? v : { f64_bits: bits };
    } else out[k] = v;
  }
  return out;
}

/** The keys of `expected` (all of them for exact values, a subset for JPEG/resized images) must match. */
function matches(expected: unknown, got: unknown): boolean {
  if (typeof expected !== 'object' || expected === null) return isDeepStrictEqual(expected, got);
  if (typeof got !== 'object' || got === null) return false;
  return Object.entries(expected).every(([k, v]) => isDeepStrictEqual(v, (got as Record<string, unknown>)[k]));
}

const ms = (seconds: number): string => `${(seconds * 1000).toFixed(0)} ms`;

const short = (v: unknown): string => {
  const s = JSON.stringify(v);
  return s.length > 600 ? `${s.slice(0, 600)}…` : s;
};

class Failures {
  readonly list: string[] = [];
  add(c: Case, what: string): void {
    this.list.push(`${describeSchema(c.schema)}\n    ${what}`);
  }
  check(): void {
    const n = this.list.length;
    const msg = n
      ? `${n} mismatch(es), seed ${SEED} (reproduce: ${REPRO}):\n  ${this.list.slice(0, 12).join('\n  ')}${n > 12 ? `\n  … ${n - 12} more` : ''}`
      : '';
    expect(msg).toBe('');
  }
}

/** Our reader's canonical dump of a file. */
async function ourDump(
  path: string,
): Promise<{ header: Reader['header']; fields: Array<{ name: string; typeId: number }>; samples: Canonical[]; allocations: number }> {
  const r = await Reader.open(path);
  try {
    const samples: Canonical[] = [];
    for (let i = 0; i < r.numSamples; i++) samples.push(canonicalSample(r, i));
    return {
      header: r.header,
      fields: r.fields.map((f) => ({ name: f.name, typeId: f.field.typeId })),
      samples,
      allocations: r.allocations.length,
    };
  } finally {
    r.close();
  }
}

/** How many values of each kind a comparison covered, for the log. */
class Tally {
  private readonly n = new Map<string, number>();
  add(kind: string): void {
    this.n.set(kind, (this.n.get(kind) ?? 0) + 1);
  }
  toString(): string {
    return [...this.n]
      .sort()
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
  }
}

function kindOf(v: unknown): string | null {
  if (typeof v === 'string') return 'int';
  const o = v as Record<string, unknown>;
  if ('f64_bits' in o) return 'float';
  if ('head_hex' in o) return o.size === 0 ? 'empty bytes' : 'bytes';
  if ('value' in o) return 'json';
  if ('dtype' in o) return 'array';
  if ('mode' in o) return `${o.mode} image`;
  return null;
}

/** Compares one file's dumps: ours vs FFCV's (exact), both vs the inputs. */
function compareDumps(
  c: Case,
  path: string,
  who: string,
  ours: Awaited<ReturnType<typeof ourDump>>,
  theirs: FfcvDump,
  f: Failures,
  tally: Tally,
): void {
  const s = c.schema;
  const fail = (what: string): void => f.add(c, `${who} file ${path}: ${what}`);
  if (theirs.error) return fail(`FFCV's reader failed: ${theirs.error}`);
  const h = theirs.header;
  if (h.num_samples !== s.samples.length || ours.header.numSamples !== s.samples.length)
    fail(`num_samples ffcv=${h.num_samples} ours=${ours.header.numSamples}, wrote ${s.samples.length}`);
  if (h.page_size !== ours.header.pageSize) fail(`page_size ffcv=${h.page_size} ours=${ours.header.pageSize}`);
  if (h.alloc_table_ptr !== ours.header.allocTablePtr || h.alloc_entries !== ours.allocations)
    fail(`allocation table ffcv=${h.alloc_table_ptr}+${h.alloc_entries} ours=${ours.header.allocTablePtr}+${ours.allocations}`);
  const wantFields = s.fields.map(({ name, spec }) => {
    const out: FfcvField = { name, type_id: TYPE_IDS[spec.type]!, handler: '' };
    if (spec.type === 'ndarray' || spec.type === 'torch') Object.assign(out, { dtype: ourField(spec).toSpec().dtype, shape: spec.shape });
    return out;
  });
  const gotFields = h.fields.map(({ handler: _h, ...rest }) => ({ ...rest, handler: '' }));
  if (!isDeepStrictEqual(gotFields, wantFields)) fail(`FFCV sees fields ${short(h.fields)}, wrote ${short(wantFields)}`);
  if (
    !isDeepStrictEqual(
      ours.fields,
      wantFields.map((w) => ({ name: w.name, typeId: w.type_id })),
    )
  )
    fail(`we see fields ${short(ours.fields)}`);
  const torchAsNdarray = h.fields.every((x) => x.handler === (x.type_id === 6 ? 'NDArrayField' : x.handler));
  if (!torchAsNdarray) fail(`TorchTensorField should read back as FFCV's NDArrayField: ${short(h.fields)}`);
  s.samples.forEach((values, i) => {
    const mine = comparable(ours.samples[i] ?? {});
    const ffcv = comparable(theirs.samples[i] ?? {});
    for (const v of Object.values(ffcv)) tally.add(kindOf(v) ?? 'other');
    if (!isDeepStrictEqual(mine, ffcv)) {
      for (const { name } of s.fields) {
        if (!isDeepStrictEqual(mine[name], ffcv[name]))
          fail(`sample ${i} field ${JSON.stringify(name)}: ours ${short(mine[name])} ≠ FFCV's ${short(ffcv[name])}`);
      }
    }
    values.forEach((v, k) => {
      const { name, spec } = s.fields[k]!;
      const want = expectedCanonical(spec, v);
      if (!matches(want, mine[name])) fail(`sample ${i} field ${JSON.stringify(name)}: read ${short(mine[name])}, wrote ${short(want)}`);
    });
  });
}

describeFfcv(`.beton format round trip with the real FFCV (seed ${SEED}, ${COUNT} schemas)`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'beton-format-rt-'));
  const cases: Case[] = [];
  let py: PythonResult;
  const dumps = new Map<string, Awaited<ReturnType<typeof ourDump>>>();

  beforeAll(async () => {
    process.stderr.write(`format round trip: seed ${SEED}, ${COUNT} schemas (reproduce: ${REPRO})\n`);
    const schemas = Array.from({ length: COUNT }, (_, k) => generateSchema(SEED, k));
    // Streams apart from the random schemas', so these stay the same whatever the count.
    schemas.push(emptySchema(SEED, 1_000_000));
    // The Loader's numba compile costs seconds per pipeline: two datasets, both memory managers.
    const loaders = new Map([
      [loaderSchema(SEED, 1_000_001, false), true],
      [loaderSchema(SEED, 1_000_002, true), false],
    ]);
    schemas.push(...loaders.keys());
    const t0 = Date.now();
    for (const s of schemas) {
      const ours = join(dir, `ours-${s.index}.beton`);
      try {
        await new DatasetWriter(
          ours,
          s.fields.map(({ name, spec }) => ({ name, field: ourField(spec) })),
          {
            pageSize: s.ourPageSize,
            allowSmallPages: true,
            numWorkers: s.numWorkers,
            chunkSize: s.chunkSize,
            seed: s.npSeed,
          },
        ).write(s.samples.map((v) => ourSample(s, v)));
      } catch (e) {
        throw new Error(`our writer failed on ${describeSchema(s)} (seed ${SEED}; reproduce: ${REPRO}): ${(e as Error).message}`);
      }
      const osCache = loaders.get(s);
      cases.push({
        schema: s,
        ours,
        ffcv: s.ffcvWrites ? join(dir, `ffcv-${s.index}.beton`) : null,
        ...(osCache !== undefined ? { loader: { osCache } } : {}),
      });
    }
    const tOurs = Date.now() - t0;
    const job = {
      write: cases.filter((c) => c.ffcv).map((c) => pythonWriteJob(c.schema, c.ffcv!)),
      read: cases.flatMap((c) => [c.ours, ...(c.ffcv ? [c.ffcv] : [])]),
      load: cases.filter((c) => c.loader).map((c) => ({ path: c.ours, os_cache: c.loader!.osCache, batch_size: 3 })),
    };
    try {
      py = runFfcv<PythonResult>('format_roundtrip.py', job, 300_000).result;
    } catch (e) {
      throw new Error(`FFCV's side failed (seed ${SEED}; reproduce: ${REPRO}):\n${(e as Error).message}`);
    }
    const t1 = Date.now();
    for (const p of job.read) dumps.set(p, await ourDump(p));
    process.stderr.write(
      `format round trip: our writes ${tOurs} ms; FFCV writes ${ms(py.seconds.write)}, reads ${ms(py.seconds.read)}, loads ${ms(py.seconds.load)}; our reads ${Date.now() - t1} ms\n`,
    );
  }, 600_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('covers every field type, dtype and write mode, odd sizes and page sizes', () => {
    const seen = new Set(
      cases.flatMap((c) =>
        c.schema.fields.map(({ spec }) =>
          spec.type === 'rgb'
            ? `rgb:${spec.writeMode}`
            : spec.type === 'ndarray' || spec.type === 'torch'
              ? `${spec.type}:${spec.dtype}`
              : spec.type,
        ),
      ),
    );
    expect(VARIANTS.filter((v) => !seen.has(v))).toEqual([]);
    expect(cases.length).toBeGreaterThanOrEqual(31);
    const small = cases.filter((c) => c.schema.ourPageSize < 2 << 20).length;
    expect(small).toBeGreaterThan(0);
  });

  it('FFCV writes, our reader returns exactly what FFCV reads back (and what went in)', () => {
    const f = new Failures();
    const tally = new Tally();
    let samples = 0;
    for (const c of cases.filter((x) => x.ffcv)) {
      compareDumps(c, c.ffcv!, 'FFCV-written', dumps.get(c.ffcv!)!, py.read[c.ffcv!]!, f, tally);
      samples += c.schema.samples.length;
    }
    process.stderr.write(`format round trip: FFCV → ours: ${cases.filter((x) => x.ffcv).length} files, ${samples} samples (${tally})\n`);
    f.check();
  });

  it('we write, FFCV reads exactly what our reader returns (and what went in)', () => {
    const f = new Failures();
    const tally = new Tally();
    let samples = 0;
    for (const c of cases) {
      compareDumps(c, c.ours, 'our', dumps.get(c.ours)!, py.read[c.ours]!, f, tally);
      samples += c.schema.samples.length;
    }
    process.stderr.write(`format round trip: ours → FFCV: ${cases.length} files, ${samples} samples (${tally})\n`);
    f.check();
  });

  it("with the same inputs and page size, our file is FFCV's byte for byte (except 'proportion', whose draws differ)", () => {
    const f = new Failures();
    const same = cases.filter(
      (c) =>
        c.ffcv &&
        c.schema.ourPageSize === c.schema.ffcvPageSize &&
        !c.schema.fields.some(({ spec }) => spec.type === 'rgb' && spec.writeMode === 'proportion'),
    );
    for (const c of same) {
      const ours = createHash('sha256').update(readFileSync(c.ours)).digest('hex');
      const theirs = py.written[c.ffcv!]!;
      if (ours !== theirs.sha256)
        f.add(c, `our file ${c.ours} (sha256 ${ours}) ≠ FFCV's ${c.ffcv} (${theirs.sha256}, ${theirs.size} bytes)`);
    }
    process.stderr.write(`format round trip: ${same.length} files compared byte for byte\n`);
    expect(same.length).toBeGreaterThan(0);
    f.check();
  });

  it("FFCV's Loader (stock decoders; OS cache and process cache over small pages) delivers what our reader returns", () => {
    const f = new Failures();
    const tally = new Tally();
    const loaded = cases.filter((c) => c.loader);
    expect(loaded.map((c) => c.loader!.osCache).sort()).toEqual([false, true]);
    for (const c of loaded) {
      const got = py.loaded[c.ours]!;
      if (got.error) {
        f.add(c, `FFCV's Loader failed on ${c.ours}: ${got.error}`);
        continue;
      }
      const ours = dumps.get(c.ours)!.samples;
      if (got.samples.length !== ours.length) f.add(c, `FFCV's Loader gave ${got.samples.length} samples, we read ${ours.length}`);
      got.samples.forEach((sample, i) => {
        const mine = comparable(ours[i] ?? {});
        for (const [name, v] of Object.entries(comparable(sample))) {
          tally.add(kindOf(v) ?? 'other');
          if (!matches(v, mine[name]))
            f.add(
              c,
              `${c.ours} (os_cache=${c.loader!.osCache}) sample ${i} field ${JSON.stringify(name)}: FFCV's Loader ${short(v)}, our reader ${short(mine[name])}`,
            );
        }
      });
    }
    process.stderr.write(`format round trip: FFCV's Loader: ${loaded.length} files (${tally})\n`);
    f.check();
  });

  it("FFCV's pointer→size lookup errs only where a zero-size object shares the pointer (FFCV's bug, spec §7.3), in its files and ours alike", () => {
    const f = new Failures();
    const objects = { ffcv: 0, ours: 0 };
    const shared = { ffcv: 0, ours: 0 };
    for (const c of cases) {
      for (const p of [c.ours, ...(c.ffcv ? [c.ffcv] : [])]) {
        const d = py.read[p]!;
        const who = p === c.ours ? 'ours' : 'ffcv';
        if (d.error) continue; // reported by the value comparisons
        objects[who] += d.heap_objects;
        for (const m of d.lookup_mismatches) {
          if (m.shared_with_empty) shared[who]++;
          else
            f.add(
              c,
              `${p}: sample ${m.sample} field ${JSON.stringify(m.field)}: FFCV's lookup gives ${m.ffcv_size} bytes for a ${m.size}-byte object`,
            );
        }
      }
    }
    process.stderr.write(
      `format round trip: heap objects looked up the FFCV way: FFCV's files ${objects.ffcv}, ${shared.ffcv} misread; ours ${objects.ours}, ${shared.ours} misread (a zero-size object shares their pointer)\n`,
    );
    f.check();
  });
});
