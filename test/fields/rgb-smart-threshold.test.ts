// Issue 22: smart mode without a threshold stored every image raw, silently. FFCV fails there
// (int > None); so does the library now, saying what to pass.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { IntField } from '../../core/fields/int-field.js';
import { RGBImageField } from '../../core/fields/rgb-image-field.js';
import { ImageFolderSource } from '../../core/sources/image-folder.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-smart-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const source = (): ImageFolderSource => new ImageFolderSource(resolve(import.meta.dirname, '../../assets/sample-images'));

it("RGBImageField({ writeMode: 'smart' }) without smartThreshold fails naming it", async () => {
  const w = new DatasetWriter(
    join(dir, 'x.beton'),
    { image: new RGBImageField({ writeMode: 'smart' }), label: new IntField() },
    { numWorkers: 1 },
  );
  await expect(w.write(source())).rejects.toThrow(/writeMode 'smart' needs smartThreshold/);
});

it('with a threshold, images above it are JPEG', async () => {
  const w = new DatasetWriter(
    join(dir, 'y.beton'),
    { image: new RGBImageField({ writeMode: 'smart', smartThreshold: 64 * 64 * 3 }), label: new IntField() },
    { numWorkers: 1 },
  );
  const r = await w.write(source());
  expect(r.imageModes.image).toMatchObject({ jpg: 48, raw: 0 });
});
