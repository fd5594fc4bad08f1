import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BytesField } from '../../core/fields/bytes-field.js';
import { IntField } from '../../core/fields/int-field.js';
import { JSONField } from '../../core/fields/json-field.js';
import { RGBImageField } from '../../core/fields/rgb-image-field.js';
import { BetonFormatError, type BetonErrorCode } from '../../core/format/errors.js';
import { Reader } from '../../core/reader/reader.js';
import { fileRegions } from '../../core/reader/inspect.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { cliIn } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-bad-'));
const good = join(dir, 'good.beton');
let bytes: Buffer;
let n = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(async () => {
  const samples = Array.from({ length: 40 }, (_, i) => ({
    b: new Uint8Array(100 + i * 50).fill(i),
    j: { i },
    im: { data: new Uint8Array(20 * 10 * 3).fill(i * 5), width: 20, height: 10 },
    k: i,
  }));
  const schema = {
    b: new BytesField(),
    j: new JSONField(),
    im: new RGBImageField({ writeMode: 'proportion', compressProbability: 0.5 }),
    k: new IntField(),
  };
  await new DatasetWriter(good, schema, { pageSize: 4096, allowSmallPages: true, numWorkers: 0 }).write(samples);
  bytes = readFileSync(good);
});

function variant(mutate: (b: Buffer) => Buffer): string {
  const p = join(dir, `v${n++}.beton`);
  writeFileSync(p, mutate(Buffer.from(bytes)));
  return p;
}

async function codeOf(p: string): Promise<BetonErrorCode | 'OK'> {
  try {
    const r = await Reader.open(p);
    // Reading every sample must not crash either.
    for (let i = 0; i < r.numSamples; i++) r.read(i);
    r.close();
    return 'OK';
  } catch (e) {
    if (e instanceof BetonFormatError) return e.code;
    throw e;
  }
}

const cli = cliIn();

describe('bad .beton files', () => {
  it('the unmodified file reads', async () => {
    expect(await codeOf(good)).toBe('OK');
    // Mixed raw/jpg so JPEG sizes come from the allocation table.
    const r = await Reader.open(good);
    const modes = new Set(Array.from({ length: r.numSamples }, (_, i) => r.fieldMetadata(i, 2).getUint8(0)));
    expect(modes).toEqual(new Set([0, 1]));
    r.close();
  });

  it('truncation at every region boundary (and one byte either side) gives TRUNCATED or BAD_HEADER', async () => {
    const r = await Reader.open(good);
    const cuts = new Set<number>();
    for (const reg of fileRegions(r, false)) {
      for (const at of [reg.offset, reg.offset + 1, reg.offset + reg.size - 1, reg.offset + Math.floor(reg.size / 2)]) {
        if (at >= 0 && at < bytes.length) cuts.add(at);
      }
    }
    r.close();
    cuts.add(0);
    cuts.add(bytes.length - 1);
    for (const at of cuts) {
      const code = await codeOf(variant((b) => b.subarray(0, at)));
      expect(['TRUNCATED', 'BAD_HEADER', 'BAD_VERSION'], `cut at ${at}`).toContain(code);
    }
  });

  it('wrong version', async () => {
    expect(await codeOf(variant((b) => (b.writeUInt16LE(3, 0), b)))).toBe('BAD_VERSION');
  });

  it('num_samples lying (larger and smaller)', async () => {
    expect(await codeOf(variant((b) => (b.writeBigUInt64LE(41n, 8), b)))).not.toBe('OK');
    expect(await codeOf(variant((b) => (b.writeBigUInt64LE(10n ** 15n, 8), b)))).toBe('BAD_HEADER');
    // Fewer samples than the allocation table names: the table refers to samples that do not exist.
    expect(await codeOf(variant((b) => (b.writeBigUInt64LE(39n, 8), b)))).toBe('BAD_ALLOC_TABLE');
  });

  it('a heap pointer past EOF', async () => {
    // Field b (bytes) is the first member of sample 0's record: ptr at M0 + 0.
    const m0 = 24 + 1041 * 4;
    expect(await codeOf(variant((b) => (b.writeBigUInt64LE(BigInt(bytes.length + 1000), m0), b)))).toBe('BAD_POINTER');
  });

  it('an alloc_table_ptr past EOF', async () => {
    expect(await codeOf(variant((b) => (b.writeBigUInt64LE(BigInt(bytes.length * 2), 16), b)))).toBe('TRUNCATED');
  });

  it('a bad page size', async () => {
    expect(await codeOf(variant((b) => (b.writeUInt32LE(3000, 4), b)))).toBe('BAD_PAGE_SIZE');
  });

  it('an unknown field type', async () => {
    expect(await codeOf(variant((b) => ((b[24] = 42), b)))).toBe('UNKNOWN_FIELD_TYPE');
  });

  it('garbage bytes and foreign files', async () => {
    let seed = 7;
    const rand = (): number => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
    for (let k = 0; k < 20; k++) {
      const junk = Buffer.from(Array.from({ length: Math.floor(rand() * 5000) }, () => Math.floor(rand() * 256)));
      expect(await codeOf(variant(() => junk))).not.toBe('OK');
    }
    const png = join(dir, 'foreign.beton');
    copyFileSync(join(FIXTURES, 'src_images/index.json'), png);
    expect(await codeOf(png)).not.toBe('OK');
  });

  it('garbage in the data region of a JPEG sample is a named error, not a crash', async () => {
    const r = await Reader.open(good);
    let jpgSample = -1;
    for (let i = 0; i < r.numSamples && jpgSample < 0; i++) if (r.fieldMetadata(i, 2).getUint8(0) === 0) jpgSample = i;
    const ref = r.heapRef(jpgSample, 2)!;
    r.close();
    const p = variant((b) => (b.fill(0xab, ref.ptr, ref.ptr + ref.size), b));
    const r2 = await Reader.open(p);
    expect(() => r2.read(jpgSample)).toThrow(BetonFormatError);
    r2.close();
  });
});

describe('CLI exit codes', () => {
  it('inspect and dump a good file: exit 0', () => {
    const a = cli('inspect', good);
    expect(a.status, a.stderr).toBe(0);
    expect(a.stdout).toContain('40 samples');
    const d = cli('dump', good, '--range', '3:5');
    expect(d.status, d.stderr).toBe(0);
    const doc = JSON.parse(d.stdout) as { samples: Array<{ k: string }>; header: { num_samples: number } };
    expect(doc.samples.map((s) => s.k)).toEqual(['3', '4']);
    expect(doc.header.num_samples).toBe(40);
  });

  it('bad files exit 1 with the error code and the file name', () => {
    const cases = [
      variant((b) => b.subarray(0, 100)),
      variant((b) => (b.writeUInt16LE(9, 0), b)),
      variant((b) => (b.writeBigUInt64LE(10n ** 15n, 8), b)),
      join(dir, 'missing.beton'),
    ];
    const b = cli('build', join(dir, 'no-such-source'), '-o', join(dir, 'x.beton'));
    expect(b.status).toBe(1);
    expect(b.stderr).toContain('no-such-source');
    for (const p of cases) {
      const r = cli('inspect', p);
      expect(r.status, p).toBe(1);
      expect(r.stderr).toContain(p);
    }
  });

  it('bad usage exits 2', () => {
    expect(cli().status).toBe(2);
    expect(cli('frobnicate').status).toBe(2);
    expect(cli('inspect').status).toBe(2);
    expect(cli('dump', good, '--range', 'x').status).toBe(2);
  });
});
