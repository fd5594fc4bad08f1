/**
 * Rebuilding an FFCV golden file (test/fixtures/ffcv) with our DatasetWriter from its
 * manifest's writer config, and checking the result is byte-identical (size and SHA-256).
 * Shared by test/writer/golden-rebuild.test.ts (fast: every fixture) and
 * test/writer/golden-rebuild-workers.test.ts (slow: every fixture under 1 and 2 workers).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { BytesField } from '../../core/fields/bytes-field.js';
import type { Field } from '../../core/fields/field.js';
import { FloatField } from '../../core/fields/float-field.js';
import { IntField } from '../../core/fields/int-field.js';
import { JSONField } from '../../core/fields/json-field.js';
import { NDArrayField } from '../../core/fields/ndarray-field.js';
import { parsePythonJson } from '../../core/fields/python-json.js';
import { RGBImageField, type DecodedImage, type WriteMode } from '../../core/fields/rgb-image-field.js';
import { Reader } from '../../core/reader/reader.js';
import { ImageFolderSource } from '../../core/sources/images/image-folder.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';
import type { Sample } from '../../core/writer/sample.js';
import { FIXTURES, fixturePath, manifest, type Manifest } from './fixtures.js';

const sha256File = (p: string): string => createHash('sha256').update(readFileSync(p)).digest('hex');

function fieldsOf(m: Manifest): Array<{ name: string; field: Field }> {
  return m.writer.fields.map((f) => {
    switch (f.class) {
      case 'IntField':
        return { name: f.name, field: new IntField() };
      case 'FloatField':
        return { name: f.name, field: new FloatField() };
      case 'BytesField':
        return { name: f.name, field: new BytesField() };
      case 'JSONField':
        return { name: f.name, field: new JSONField() };
      case 'NDArrayField':
        return { name: f.name, field: new NDArrayField({ dtype: f.dtype as string, shape: f.shape as number[] }) };
      case 'RGBImageField':
        return {
          name: f.name,
          field: new RGBImageField({
            writeMode: f.write_mode as WriteMode,
            maxResolution: f.max_resolution as number | null,
            smartThreshold: f.smart_threshold as number | null,
            jpegQuality: f.jpeg_quality as number,
            compressProbability: f.compress_probability as number,
          }),
        };
      default:
        throw new Error(`unexpected class ${f.class}`);
    }
  });
}

/**
 * The manifests give the writer's exact config but not every input value, so inputs
 * come from the golden file itself (decoded values), from `inputs` where they are given
 * (JSON text), or from the real source images (images_raw, through sharp).
 */
async function inputsOf(name: string, m: Manifest): Promise<Sample[]> {
  if (name === 'images_raw' || name === 'images_jpg' || name === 'images_smart')
    return [...new ImageFolderSource(join(FIXTURES, 'src_images'))];
  const r = await Reader.open(fixturePath(name));
  try {
    const out: Sample[] = [];
    for (let i = 0; i < r.numSamples; i++) {
      const s = r.read(i);
      for (const { name: f, field } of r.fields) {
        if (field.type === 'json')
          s[f] = parsePythonJson((m.inputs![i] as { json_stored_text: string }).json_stored_text, { keepFloats: true });
        // images_fixedsize mixes JPEG and raw samples drawn by numpy's RNG; its JPEG
        // pixels are not in the manifest, so the stored images are copied as they are.
        if (field.type === 'rgb_image') {
          const im = s[f] as DecodedImage;
          s[f] = { mode: im.mode, width: im.width, height: im.height, stored: im.stored };
        }
      }
      out.push(s);
    }
    return out;
  } finally {
    r.close();
  }
}

/** The fixtures our writer reproduces byte for byte (images_proportion needs numpy's RNG draws). */
export const REBUILT_FIXTURES = ['ints_floats', 'ndarray', 'bytes_json', 'images_raw', 'images_fixedsize', 'images_jpg', 'images_smart'];

/** Rebuilds fixture `name` into `dir` with `numWorkers` encode workers; expects FFCV's exact bytes. */
export async function expectByteIdenticalRebuild(name: string, dir: string, numWorkers: number): Promise<void> {
  const m = manifest(name);
  const out = join(dir, `${name}-${numWorkers}.beton`);
  const report = await new DatasetWriter(out, fieldsOf(m), {
    pageSize: m.writer.page_size,
    allowSmallPages: true,
    numWorkers,
    chunkSize: m.writer.chunksize,
  }).write(await inputsOf(name, m));
  expect(report.numSamples).toBe(m.num_samples);
  expect(report.fileSize).toBe(m.file_size);
  expect(sha256File(out)).toBe(m.file_sha256);
}
