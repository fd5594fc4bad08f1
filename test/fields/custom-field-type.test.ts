/**
 * The proof that a field type is one file plus a registration: a "u16_pair" type (two
 * uint16 per sample in the metadata record, custom type 255) is defined here and nowhere
 * else, then built with encode workers, read back, loaded with decode workers, previewed
 * as the app's dataset view does, dumped canonically and exported to Python.
 *
 * Worker threads import this module (the registration names it with `module`), so the
 * type exists there too; the tests themselves run on the main thread only.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { LoaderConfig } from '../../core/api/loader-config.js';
import type { BuildConfig, FieldConfig } from '../../core/api/build-config.js';
import { loaderToPython, buildToPython } from '../../core/export/python.js';
import { customArguments, CUSTOM_TYPE_ID } from '../../core/fields/custom-arguments.js';
import { TypedField, type EncodedValue, type FieldIdentity, type FieldSpec } from '../../core/fields/field.js';
import type { FieldType } from '../../core/fields/field-type.js';
import { IntField } from '../../core/fields/int-field.js';
import { findFieldType, registerFieldType } from '../../core/fields/registry.js';
import { BetonEncodeError } from '../../core/format/errors.js';
import { Loader } from '../../core/loader/loader.js';
import { canonicalSample } from '../../core/reader/canonical.js';
import { Reader } from '../../core/reader/reader.js';
import { previewDataset } from '../../core/app/dataset-views.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';
import { checkPython } from '../helpers/python-check.js';
import { ffcvStatus, PYTHON } from '../interop/ffcv.js';

type Pair = readonly [number, number];

/** The type's name, id and FFCV class, declared once: the class and the type object read them. */
const U16_PAIR: FieldIdentity = { type: 'u16_pair', typeId: CUSTOM_TYPE_ID, ffcvClass: 'U16PairField' };

class U16PairField extends TypedField<Pair> {
  readonly metadata = { size: 4, align: 1 };
  readonly pointerOffset = null;

  constructor() {
    super(U16_PAIR);
  }

  toSpec(): FieldSpec {
    return { type: this.type };
  }

  override encodeArguments(): Uint8Array {
    return customArguments(this.toSpec());
  }

  encode(value: unknown): EncodedValue {
    const ok = (x: unknown): x is number => Number.isInteger(x) && (x as number) >= 0 && (x as number) <= 0xffff;
    const [a, b] = Array.isArray(value) && value.length === 2 ? (value as unknown[]) : [];
    if (!ok(a) || !ok(b)) throw new BetonEncodeError('BAD_VALUE', 'U16PairField expects [a, b] with 0 <= a, b < 65536');
    const meta = new Uint8Array(4);
    const v = new DataView(meta.buffer);
    v.setUint16(0, a, true);
    v.setUint16(2, b, true);
    return { meta, heap: null };
  }

  decode(meta: DataView): Pair {
    return [meta.getUint16(0, true), meta.getUint16(2, true)];
  }
}

const U16_PAIR_PYTHON = String.raw`# --- u16_pair (test field) ---
import numpy as np
from ffcv.fields.base import Field, ARG_TYPE
from ffcv.pipeline.allocation_query import AllocationQuery
from ffcv.pipeline.operation import Operation
from dataclasses import replace

class U16PairDecoder(Operation):
    def declare_state_and_memory(self, previous_state):
        return replace(previous_state, jit_mode=True, shape=(2,), dtype=np.dtype("<i4")), AllocationQuery((2,), np.dtype("<i4"))

    def generate_code(self):
        def decode(indices, destination, metadata, storage_state):
            for ix, sample_id in enumerate(indices):
                destination[ix, 0] = metadata[sample_id]["a"]
                destination[ix, 1] = metadata[sample_id]["b"]
            return destination[:len(indices)]
        return decode

class U16PairField(Field):
    @property
    def metadata_type(self):
        return np.dtype([("a", "<u2"), ("b", "<u2")], align=False)

    @staticmethod
    def from_binary(binary):
        return U16PairField()

    def to_binary(self):
        return np.zeros(1, dtype=ARG_TYPE)[0]

    def encode(self, destination, pair, malloc):
        destination["a"], destination["b"] = pair

    def get_decoder_class(self):
        return U16PairDecoder
# --- end u16_pair ---
`;

/** Everything the type means, in one object: the registration below is the only other step. */
const U16_PAIR_TYPE: FieldType<U16PairField> = {
  ...U16_PAIR,
  fromSpec: () => new U16PairField(),
  // The loader's default decoder: (2,) int32 per sample (torch, and so FFCV, has no uint16 before 2.3), planned with the file's largest `a`.
  decoders: {
    u16_pair: (_step, _field, stats) => ({
      output: { shape: [2], dtype: 'int32' },
      decode: (m, _heap, d) => {
        const a = m.getUint16(0, true);
        if (a > Number(stats.maxA)) throw new Error(`stats say max a is ${String(stats.maxA)}, got ${a}`);
        (d as Int32Array)[0] = a;
        (d as Int32Array)[1] = m.getUint16(2, true);
      },
    }),
  },
  defaultDecoder: { decoder: 'u16_pair' },
  stats: (t) => {
    let maxA = 0;
    for (let i = 0, off = t.offset; i < t.numSamples; i++, off += t.stride) maxA = Math.max(maxA, t.metadata.getUint16(off, true));
    return { maxA };
  },
  preview: (v) => ({ kind: 'text', text: `(${(v as Pair).join(', ')})` }),
  canonical: (v) => ({ a: (v as Pair)[0], b: (v as Pair)[1] }),
  python: {
    field: () => `${U16_PAIR.ffcvClass}()`,
    decoders: { u16_pair: () => 'U16PairDecoder()' },
    prelude: U16_PAIR_PYTHON,
    customClass: U16_PAIR.ffcvClass,
  },
};

registerFieldType(U16_PAIR_TYPE, { module: import.meta.url });

if (isMainThread) {
  describe('a field type defined in one file and registered', () => {
    const dir = mkdtempSync(join(tmpdir(), 'beton-custom-type-'));
    const file = join(dir, 'pairs.beton');
    const n = 250;
    const pair = (i: number): Pair => [(i * 7) % 1000, 65535 - i];
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('builds with encode workers, reads back, loads with decode workers, previews, dumps and exports', async () => {
      expect(findFieldType('u16_pair')).toBe(U16_PAIR_TYPE);
      const report = await new DatasetWriter(
        file,
        { pair: new U16PairField(), label: new IntField() },
        { numWorkers: 2, chunkSize: 16 },
      ).write(Array.from({ length: n }, (_, i) => ({ pair: [...pair(i)], label: i })));
      expect(report.numSamples).toBe(n);

      // Reader: the descriptor says type 255 with our argument blob; the registry rebuilds the field.
      const reader = await Reader.open(file);
      try {
        expect(reader.fields.map((f) => [f.name, f.field.type, f.field.typeId])).toEqual([
          ['pair', 'u16_pair', 255],
          ['label', 'int', 1],
        ]);
        for (const i of [0, 1, 137, n - 1]) expect(reader.readField(i, 'pair')).toEqual(pair(i));
        // The canonical dump (beton dump, golden manifests) uses the type's own form.
        expect(canonicalSample(reader, 5)).toEqual({ pair: { a: 35, b: 65530 }, label: '5' });
      } finally {
        reader.close();
      }

      // Loader with workers: they import this module (registered with `module`) to know the type.
      const loader = await Loader.open(file, { batchSize: 32, order: 'sequential', numWorkers: 2, dropLast: false });
      const seen = new Map<number, Pair>();
      try {
        for await (const b of loader) {
          const out = b.get('pair');
          expect(out.shape.slice(1)).toEqual([2]);
          expect(out.dtype).toBe('int32');
          b.sampleIds.forEach((id, r) => seen.set(id, [Number(out.data[2 * r]), Number(out.data[2 * r + 1])]));
        }
      } finally {
        await loader.close();
      }
      expect(seen.size).toBe(n);
      for (const [id, p] of seen) expect(p).toEqual(pair(id));

      // The app's dataset view shows the type's preview.
      const preview = await previewDataset(file, 3, 2, 64);
      expect(preview.samples.map((s) => s.fields.pair)).toEqual([
        { kind: 'text', text: '(21, 65532)' },
        { kind: 'text', text: '(28, 65531)' },
      ]);

      // Python: the loader export defines the field class and passes it through custom_fields.
      const py = loaderToPython(LoaderConfig.parse({ file, batchSize: 32, pipelines: {} }), {
        fields: [
          { name: 'pair', type: 'u16_pair' },
          { name: 'label', type: 'int' },
        ],
      });
      expect(py).toContain('class U16PairField(Field):');
      expect(py).toContain('custom_fields={"pair": U16PairField}');
      const withPipeline = loaderToPython(LoaderConfig.parse({ file, batchSize: 32, pipelines: {} }), {
        fields: [{ name: 'pair', type: 'u16_pair' }],
      });
      expect(withPipeline.split('class U16PairField(Field):').length).toBe(2);
      // The writer export spells the field with the type's constructor.
      const build = buildToPython(
        { source: { type: 'table', path: 'pairs.csv' }, output: file, pageSize: 8 << 20, chunkSize: 100 } as BuildConfig,
        [{ name: 'pair', type: 'u16_pair' } as unknown as FieldConfig],
      );
      expect(build).toContain('"pair": U16PairField(),');
      expect(build).toContain('class U16PairField(Field):');
      for (const code of [py, build]) {
        const check = checkPython(code);
        if (check !== null) expect(check).toBe('ok');
      }

      // Where FFCV is installed, the exported loader reads the file with the generated class.
      if (ffcvStatus().ok) {
        const module = join(dir, 'pairs_loader.py');
        writeFileSync(
          module,
          loaderToPython(
            LoaderConfig.parse({ file, batchSize: 32, order: 'sequential', dropLast: false, numWorkers: 1, pipelines: { label: null } }),
            {
              fields: [
                { name: 'pair', type: 'u16_pair' },
                { name: 'label', type: 'int' },
              ],
            },
          ),
        );
        const script =
          'import sys, json, importlib.util\nspec = importlib.util.spec_from_file_location("m", sys.argv[1]); m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\nout = []\nfor (pair,) in m.loader: out += pair.numpy().tolist()\nprint(json.dumps(out))';
        const r = spawnSync(PYTHON, ['-c', script, module], { encoding: 'utf8', cwd: dir, timeout: 300_000 });
        expect(r.status, r.stderr).toBe(0);
        expect(JSON.parse(r.stdout.trim().split('\n').pop()!)).toEqual(Array.from({ length: n }, (_, i) => [...pair(i)]));
      }
    }, 300_000);
  });
}
