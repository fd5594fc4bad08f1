// Issue 22: defaults a user would choose, said in the help, and a report that says why a
// small dataset's file is large. Each failed before: raw and no cap by default (3.7 MB of
// JPEGs → 176 MiB), smart without a threshold storing everything raw, no default shown.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { paddingNote } from '../../core/cli/build-command.js';
import { parseBuildConfig } from '../../core/api/build-config.js';
import { DEFAULT_MAX_RESOLUTION, DEFAULT_SMART_THRESHOLD } from '../../core/api/constants.js';
import { cliInProcess as cli, SAMPLE_IMAGES as SAMPLES } from '../helpers/cli-in-process.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-defaults-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('build defaults', () => {
  it('a build config defaults to smart (64x64 threshold) with a 512 px cap', () => {
    const c = parseBuildConfig({ source: { type: 'image_folder', path: SAMPLES }, output: 'x.beton' });
    if (!c.ok) throw new Error(c.errors.join('; '));
    expect(c.value.image).toBeUndefined();
    const field = parseBuildConfig({
      source: { type: 'image_folder', path: SAMPLES },
      output: 'x.beton',
      fields: [{ name: 'image', type: 'rgb_image' }],
    });
    if (!field.ok) throw new Error(field.errors.join('; '));
    expect(field.value.fields![0]).toMatchObject({ writeMode: 'smart', maxResolution: 512, smartThreshold: 64 * 64 * 3 });
    expect([DEFAULT_MAX_RESOLUTION, DEFAULT_SMART_THRESHOLD]).toEqual([512, 12288]);
  });

  it('beton build stores the sample JPEGs as JPEG by default, and --write-mode smart alone too', async () => {
    const plain = await cli('build', SAMPLES, '-o', join(dir, 'plain.beton'), '--workers', '1', '--json');
    expect(plain.code, plain.err).toBe(0);
    expect(JSON.parse(plain.out).imageModes.image).toMatchObject({ raw: 0, jpg: 48 });
    const smart = await cli('build', SAMPLES, '-o', join(dir, 'smart.beton'), '--workers', '1', '--write-mode', 'smart', '--json');
    expect(JSON.parse(smart.out).imageModes.image).toMatchObject({ raw: 0, jpg: 48 });
  }, 120_000);

  it('--max-resolution none keeps every pixel (FFCV’s default)', async () => {
    const r = await cli('build', SAMPLES, '--schema-only', '--max-resolution', 'none');
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out).fields[0]).toMatchObject({ name: 'image', writeMode: 'smart', maxResolution: null });
  });

  it('the help states each default', async () => {
    const r = await cli('build', '--help');
    expect(r.out).toMatch(/--write-mode MODE .*\(default smart; FFCV's is raw\)/);
    expect(r.out).toMatch(/--max-resolution N\|none .*\(default 512;/);
    expect(r.out).toMatch(/--smart-threshold BYTES .*\(default 12288: 64x64\)/);
  });
});

describe('a small dataset in big pages', () => {
  it('the report says the file is mostly padding and which flag fixes it', async () => {
    const r = await cli('build', SAMPLES, '-o', join(dir, 'pad.beton'), '--workers', '1');
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/the file is mostly padding: .* of data in whole 8\.0 MiB pages; --page-size 2097152 .* makes it about 4\.0 MiB/);
    const small = await cli('build', SAMPLES, '-o', join(dir, 'small.beton'), '--workers', '1', '--page-size', '2097152');
    expect(small.out).not.toMatch(/mostly padding/);
  }, 120_000);

  it('no note when the data fills the pages', () => {
    expect(paddingNote({ fileSize: 24 * 2 ** 20, pageSize: 8 * 2 ** 20, heapBytes: { image: 15 * 2 ** 20 } })).toBeNull();
  });
});

describe('the default cap and extreme aspect ratios', () => {
  it('a 4000x1 image under the 512 cap keeps one row (FFCV would truncate to 0 and fail)', async () => {
    const { cappedSize, storedSize } = await import('../../core/fields/rgb-image-field.js');
    expect(storedSize(4000, 1, 512)).toEqual([512, 1]);
    expect(storedSize(1, 4000, 512)).toEqual([1, 512]);
    expect(storedSize(1000, 600, 512)).toEqual([512, 307]);
    expect(cappedSize(4000, 1, 512)).toEqual([512, 0]); // FFCV's own arithmetic, kept for the interop model
  });
});
