import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseBuildConfig } from '../core/api/build-config.js';
import { parseLoaderConfig } from '../core/api/loader-config.js';
import { buildToPython, loaderToPython } from '../core/export/python.js';
import { checkPython } from './helpers/python-check.js';
import { fixturePath } from './helpers/fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-export-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Compiles (py_compile) and imports only FFCV's public names. */
const pythonParses = (code: string): string | null => checkPython(code);

describe('Python FFCV export', () => {
  it('the Python check itself rejects code that does not compile and non-public FFCV names', () => {
    expect(checkPython('from ffcv.loader import Loader\nLoader("x", batch_size=1)\n')).toBe('ok');
    expect(checkPython('def f():\n  pass\nreturn 1\n')).toMatch(/return/);
    expect(checkPython('from ffcv.loader.loader import Loader\n')).toMatch(/not public FFCV names: ffcv.loader.loader.Loader/);
    expect(checkPython('from ffcv.transforms import Frobnicate\n')).toMatch(/Frobnicate/);
  });

  it('a build config becomes a DatasetWriter call with the same options', () => {
    const r = parseBuildConfig({ source: { type: 'image_folder', path: '/data/train' }, output: '/data/train.beton', image: { writeMode: 'smart', smartThreshold: 100000, maxResolution: 256 }, numWorkers: 8 });
    if (!r.ok) throw new Error(r.errors.join());
    const code = buildToPython(r.value, [
      { name: 'image', type: 'rgb_image', writeMode: 'smart', maxResolution: 256, smartThreshold: 100000, jpegQuality: 90, compressProbability: 0.5, passThrough: false },
      { name: 'label', type: 'int' },
    ]);
    expect(pythonParses(code)).toBe('ok');
    expect(code).toContain('ImageFolder("/data/train")');
    expect(code).toContain('"image": RGBImageField(write_mode="smart", max_resolution=256, smart_threshold=100000, jpeg_quality=90, compress_probability=0.5)');
    expect(code).toContain('page_size=8388608');
    expect(code).toContain('num_workers=8');
  });

  it('a loader config becomes a Loader with the same order, caching and pipelines', () => {
    const r = parseLoaderConfig({
      file: 'x.beton',
      batchSize: 64,
      order: 'quasi_random',
      osCache: false,
      distributed: { rank: 1, worldSize: 4 },
      pipelines: {
        image: [{ decoder: 'random_resized_crop', size: [160, 160] }, { op: 'random_horizontal_flip' }, { op: 'normalize', mean: [123.7, 116.3, 103.5], std: [58.4, 57.1, 57.4], dtype: 'float16' }, { op: 'to_chw' }],
        label: [{ decoder: 'int' }],
        meta: null,
      },
    });
    if (!r.ok) throw new Error(r.errors.join());
    const code = loaderToPython(r.value);
    expect(pythonParses(code)).toBe('ok');
    expect(code).toContain('order=OrderOption.RANDOM');
    expect(code).toContain('FFCV refuses QUASI_RANDOM with distributed=True');
    expect(code).toContain('os_cache=False');
    expect(code).toContain('NormalizeImage(np.array([123.7,116.3,103.5]), np.array([58.4,57.1,57.4]), np.float16)');
    expect(code).toContain('"label": [IntDecoder(), ToTensor(), Squeeze()]');
    expect(code).toContain('"meta": None');
  });

  it('invalid loader configs name the bad key', () => {
    const r = parseLoaderConfig({ file: 'x', batchSize: 0, pipelines: { image: [{ op: 'frobnicate' }] } });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.errors.join('\n')).toMatch(/batchSize/);
      expect(r.errors.join('\n')).toMatch(/pipelines\.image\[0\]/);
    }
  });

  it('beton export FILE prints a runnable loader for a .beton file (CLI)', () => {
    const fixture = fixturePath('images_raw');
    const r = spawnSync(process.execPath, [resolve(__dirname, '../bin/beton.js'), 'export', fixture, '--decoder', 'center:128', '--batch-size', '32'], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(pythonParses(r.stdout)).toBe('ok');
    expect(r.stdout).toContain('CenterCropRGBImageDecoder((128, 128), ratio=0.875)');
    const j = spawnSync(process.execPath, [resolve(__dirname, '../bin/beton.js'), 'export', fixture, '--format', 'json'], { encoding: 'utf8' });
    expect((JSON.parse(j.stdout) as { loader: { batchSize: number } }).loader.batchSize).toBe(256);
  });
});
