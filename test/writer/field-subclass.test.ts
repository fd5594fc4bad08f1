// Issue 19 item 6: a Field subclass the registry does not know is never silently encoded
// by its base class in the writer's worker threads. Without workers its encode runs; with
// workers it is refused up front, saying how to register a custom type. (A registered
// type running in the workers: test/fields/custom-field-type.test.ts.)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { EncodedValue } from '../../core/fields/field.js';
import { IntField } from '../../core/fields/int-field.js';
import { Reader } from '../../core/reader/reader.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-subclass-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

class DoublingField extends IntField {
  override encode(value: unknown): EncodedValue {
    return super.encode((value as number) * 2);
  }
}
class ThrowingField extends IntField {
  override encode(): EncodedValue {
    throw new Error('this field refuses every value');
  }
}
const rows = [{ x: 1 }, { x: 2 }, { x: 3 }];

async function readX(path: string): Promise<number[]> {
  const r = await Reader.open(path);
  try {
    return Array.from({ length: r.numSamples }, (_, i) => Number(r.read(i).x));
  } finally {
    r.close();
  }
}

describe('Field subclasses in the writer', () => {
  it('a doubling subclass without workers stores [2, 4, 6]', async () => {
    const out = join(dir, 'd0.beton');
    await new DatasetWriter(out, { x: new DoublingField() }, { numWorkers: 0 }).write(rows);
    expect(await readX(out)).toEqual([2, 4, 6]);
  });

  for (const numWorkers of [2, undefined]) {
    it(`a doubling subclass with workers (${numWorkers ?? 'default'}) is refused, naming registerFieldType`, async () => {
      const out = join(dir, `d${numWorkers}.beton`);
      let err: (Error & { code?: string }) | null = null;
      try {
        await new DatasetWriter(out, { x: new DoublingField() }, numWorkers === undefined ? {} : { numWorkers }).write(rows);
      } catch (e) {
        err = e as Error & { code?: string };
      }
      expect(err?.code).toBe('BAD_SCHEMA');
      expect(err?.message).toMatch(/field "x" is a DoublingField/);
      expect(err?.message).toMatch(/registerFieldType\(MY_TYPE, \{ module: import\.meta\.url \}\)/);
      expect(err?.message).toMatch(/numWorkers: 0/);
    });
  }

  it('a throwing subclass fails without workers and is refused with workers (never a silent success)', async () => {
    await expect(new DatasetWriter(join(dir, 't0.beton'), { x: new ThrowingField() }, { numWorkers: 0 }).write(rows)).rejects.toThrow(
      /refuses every value/,
    );
    await expect(
      (async () => new DatasetWriter(join(dir, 't2.beton'), { x: new ThrowingField() }, { numWorkers: 2 }).write(rows))(),
    ).rejects.toThrow(/ThrowingField/);
  });

  it('an instance with its own encode is refused with workers too', async () => {
    const f = new IntField();
    f.encode = (v: unknown): EncodedValue => IntField.prototype.encode.call(f, (v as number) + 1);
    await expect((async () => new DatasetWriter(join(dir, 'o.beton'), { x: f }, { numWorkers: 2 }).write(rows))()).rejects.toThrow(
      /own encode/,
    );
  });

  it('plain built-in fields still build with workers', async () => {
    const out = join(dir, 'plain.beton');
    await new DatasetWriter(out, { x: new IntField() }, { numWorkers: 2 }).write(rows);
    expect(await readX(out)).toEqual([1, 2, 3]);
  });
});
