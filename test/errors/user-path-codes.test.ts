/**
 * Issue 23: three plain `Error`s on user paths had no code, so the CLI and the app showed
 * them as bugs. Each is a BetonError now, with a code and a message that says what to do.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseBuildConfig } from '../../core/api/build-config.js';
import { buildToPython } from '../../core/export/python.js';
import { BetonError } from '../../core/format/errors.js';
import { BytesField } from '../../core/fields/bytes-field.js';
import { createClipDecoder } from '../../core/fields/video-clip-decoders.js';
import { VideoClipField } from '../../core/fields/video-clip-field.js';
import { Reader } from '../../core/reader/reader.js';
import { FileByteSource } from '../../core/reader/byte-source.js';
import { Batch } from '../../core/loader/batch.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';
import type { Rng } from '../../core/pipeline/rng.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-codes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const codeOf = (f: () => unknown): string | null => {
  try {
    f();
    return null;
  } catch (e) {
    expect(e).toBeInstanceOf(BetonError);
    return (e as BetonError).code;
  }
};

describe('errors on user paths carry codes', () => {
  it('a batch asked for an output it does not have: BAD_FIELD, naming the outputs', () => {
    const batch = new Batch(0, 0, new Uint32Array([0]), {});
    expect(codeOf(() => batch.get('nope'))).toBe('BAD_FIELD');
  });

  it('a byte source read after close: READER_CLOSED', async () => {
    const file = join(dir, 'c.beton');
    await new DatasetWriter(file, { b: new BytesField() }, { numWorkers: 0 }).write([{ b: new Uint8Array([1]) }]);
    const src = new FileByteSource(file);
    src.close();
    expect(codeOf(() => src.read(0, 4))).toBe('READER_CLOSED');
  });

  it('reading from a closed Reader: READER_CLOSED, naming the file', async () => {
    const file = join(dir, 'b.beton');
    await new DatasetWriter(file, { b: new BytesField() }, { numWorkers: 0 }).write([{ b: new Uint8Array([1, 2, 3]) }]);
    const reader = await Reader.open(file);
    const ref = reader.heapRef(0, 0)!;
    reader.close();
    expect(codeOf(() => reader.readBytes(ref))).toBe('READER_CLOSED');
  });

  it('exporting a field whose type has no Python: BAD_SCHEMA, naming the field', () => {
    const parsed = parseBuildConfig({ source: { type: 'table', path: 'x.csv' }, output: 'x.beton' });
    if (!parsed.ok) throw new Error(parsed.errors.join());
    let message = '';
    expect(
      codeOf(() => {
        try {
          buildToPython(parsed.value, [{ name: 'weird', type: 'no_such_type' } as never]);
        } catch (e) {
          message = (e as Error).message;
          throw e;
        }
      }),
    ).toBe('BAD_SCHEMA');
    expect(message).toContain('field "weird"');
  });

  it('a clip whose stored mode byte is damaged: CORRUPT_DATA; frames of another size than planned: UNSUPPORTED_INPUT', () => {
    const field = new VideoClipField({ writeMode: 'raw' });
    const kernels = {
      decodeJpegInto: () => undefined,
      cropResizer: () => {
        throw new Error('not used');
      },
    };
    const decoder = createClipDecoder({ decoder: 'clip_simple', size: [2, 4], frames: 1 } as never, field, {}, kernels as never);
    const meta = new DataView(new ArrayBuffer(64));
    const rng = { next: () => 0.5 } as unknown as Rng;
    const clip = (mode: number, width: number): void => {
      meta.setUint8(0, mode);
      meta.setUint16(1, 1, true);
      meta.setUint16(3, width, true);
      meta.setUint16(5, 2, true);
      meta.setUint32(23, width * 2 * 3, true);
      decoder.decode(meta, new Uint8Array(width * 2 * 3), new Uint8Array(2 * 4 * 3), rng);
    };
    expect(codeOf(() => clip(7, 4))).toBe('CORRUPT_DATA');
    expect(codeOf(() => clip(1, 6))).toBe('UNSUPPORTED_INPUT');
  });
});
