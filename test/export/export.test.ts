import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseBuildConfig } from '../../core/api/build-config.js';
import { parseLoaderConfig } from '../../core/api/loader-config.js';
import { buildToPython, loaderToPython } from '../../core/export/python.js';
import { BytesField } from '../../core/fields/bytes-field.js';
import { FloatField } from '../../core/fields/float-field.js';
import { IntField } from '../../core/fields/int-field.js';
import { JSONField } from '../../core/fields/json-field.js';
import { NDArrayField } from '../../core/fields/ndarray-field.js';
import { VideoClipField } from '../../core/fields/video-clip-field.js';
import { BetonService } from '../../core/services/beton-service.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';
import { checkPython } from '../helpers/python-check.js';
import { fixturePath } from '../helpers/fixtures.js';
import { cliInProcess, type InProcessResult } from '../helpers/cli-in-process.js';

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
    const r = parseBuildConfig({
      source: { type: 'image_folder', path: '/data/train' },
      output: '/data/train.beton',
      image: { writeMode: 'smart', smartThreshold: 100000, maxResolution: 256 },
      numWorkers: 8,
    });
    if (!r.ok) throw new Error(r.errors.join());
    const code = buildToPython(r.value, [
      {
        name: 'image',
        type: 'rgb_image',
        writeMode: 'smart',
        maxResolution: 256,
        smartThreshold: 100000,
        jpegQuality: 90,
        compressProbability: 0.5,
        passThrough: false,
      },
      { name: 'label', type: 'int' },
    ]);
    expect(pythonParses(code)).toBe('ok');
    expect(code).toContain('ImageFolder("/data/train")');
    expect(code).toContain(
      '"image": RGBImageField(write_mode="smart", max_resolution=256, smart_threshold=100000, jpeg_quality=90, compress_probability=0.5)',
    );
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
        image: [
          { decoder: 'random_resized_crop', size: [160, 160] },
          { op: 'random_horizontal_flip' },
          { op: 'normalize', mean: [123.7, 116.3, 103.5], std: [58.4, 57.1, 57.4], dtype: 'float16' },
          { op: 'to_chw' },
        ],
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
    expect(code).toContain('"label": [IntDecoder(), ToTensor()]');
    expect(code).toContain('"meta": None');
  });

  it("clip decoders become the generated numba decoders with the same options; the file's video fields get custom_fields", () => {
    const r = parseLoaderConfig({
      file: 'v.beton',
      batchSize: 8,
      pipelines: {
        clip: [{ decoder: 'clip_random_resized_crop', size: [112, 112], scale: [0.5, 1], temporal: { mode: 'every', k: 2 }, flip: 0.5 }],
        raw: [{ decoder: 'clip_simple', frames: 16, temporal: { mode: 'random_window', length: 8 } }, { op: 'random_horizontal_flip' }],
        other: null,
        label: [{ decoder: 'int' }],
      },
    });
    if (!r.ok) throw new Error(r.errors.join());
    const fields = [
      { name: 'clip', type: 'video_clip' },
      { name: 'raw', type: 'video_clip' },
      { name: 'other', type: 'video_clip' },
      { name: 'label', type: 'int' },
    ];
    const code = loaderToPython(r.value, { fields });
    expect(pythonParses(code)).toBe('ok');
    expect(code).toContain(
      '"clip": [VideoClipRandomResizedCropDecoder((112, 112), scale=(0.5, 1), ratio=(0.75, 1.3333333333333333), every=2, flip=0.5), ToTensor()]',
    );
    expect(code).toContain('"raw": [VideoClipDecoder(frames=16, window=8), ToTensor()]');
    expect(code).toMatch(/random_horizontal_flip works on \(H, W, C\) images, not \(T, H, W, 3\) clips; left out of "raw"/);
    // FFCV's Reader needs the class of a disabled custom field too.
    expect(code).toContain('custom_fields={"clip": VideoClipField, "raw": VideoClipField, "other": VideoClipField}');
    // Decoders are compiled by FFCV with numba: they go through its compiled libffcv calls.
    expect(code).toContain('from ffcv.libffcv import imdecode, memcpy, resize_crop');
    expect(code).toContain('class VideoClipRandomResizedCropDecoder(VideoClipDecoder)');
    expect(code).not.toContain('jit_mode=False');
    // Without the file at hand, a pipeline starting with a clip decoder marks its field as video.
    expect(loaderToPython(r.value)).toContain('custom_fields={"clip": VideoClipField, "raw": VideoClipField}');
  });

  it('unsigned arrays wider than a byte decode as the signed type of that width (FFCV allocates torch tensors)', () => {
    const r = parseLoaderConfig({
      file: 'a.beton',
      batchSize: 2,
      pipelines: { counts: [{ decoder: 'ndarray' }], f: [{ decoder: 'ndarray' }] },
    });
    if (!r.ok) throw new Error(r.errors.join());
    const code = loaderToPython(r.value, {
      fields: [
        { name: 'counts', type: 'ndarray', dtype: '<u2' },
        { name: 'f', type: 'ndarray', dtype: '<f4' },
        { name: 'ids', type: 'ndarray', dtype: '<u8' },
      ],
    });
    expect(pythonParses(code)).toBe('ok');
    expect(code).toContain('"counts": [NDArrayAsSignedDecoder(), ToTensor()]');
    expect(code).toContain('"f": [NDArrayDecoder(), ToTensor()]');
    // Left out of the config: FFCV's default pipeline could not start, so it is written out.
    expect(code).toContain('"ids": [NDArrayAsSignedDecoder(), ToTensor()]');
    expect(code).toContain('class NDArrayAsSignedDecoder(NDArrayDecoder)');
    expect(code.match(/class NDArrayAsSignedDecoder/g)).toHaveLength(1);
  });

  it('the exported loop goes through beton_probe.watch, guarded so the code runs without the probe (issue 18.2)', () => {
    const r = parseLoaderConfig({ file: 'x.beton', batchSize: 32, pipelines: { label: [{ decoder: 'int' }] } });
    if (!r.ok) throw new Error(r.errors.join());
    const code = loaderToPython(r.value);
    expect(pythonParses(code)).toBe('ok');
    expect(code).toContain('        for batch in watch(loader, batch_size=32):');
    // The guard alone, with a stand-in loader: without the probe on PYTHONPATH it yields the items unchanged.
    const guard = code.slice(code.indexOf('try:\n    from beton_probe'), code.indexOf('if __name__'));
    const py = spawnSync('python3', ['-c', `${guard}\nprint(list(watch([1, 2], batch_size=32)))`], {
      encoding: 'utf8',
      env: { ...process.env, PYTHONPATH: '' },
      timeout: 20_000,
    });
    // python3 is required here, as for pythonParses above (which fails without it): no skip.
    expect(py.error).toBeUndefined();
    expect(py.stderr).toBe('');
    expect(py.stdout).toBe('[1, 2]\n');
  });

  it('invalid loader configs name the bad key', () => {
    const r = parseLoaderConfig({ file: 'x', batchSize: 0, pipelines: { image: [{ op: 'frobnicate' }] } });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.errors.join('\n')).toMatch(/batchSize/);
      expect(r.errors.join('\n')).toMatch(/pipelines\.image\[0\]/);
    }
  });

  it('beton export FILE prints a runnable loader for a .beton file (CLI)', async () => {
    const fixture = fixturePath('images_raw');
    const r = spawnSync(
      process.execPath,
      [resolve(__dirname, '../../bin/beton.js'), 'export', fixture, '--decoder', 'center:128', '--batch-size', '32'],
      { encoding: 'utf8' },
    );
    expect(r.status, r.stderr).toBe(0);
    expect(pythonParses(r.stdout)).toBe('ok');
    expect(r.stdout).toContain('CenterCropRGBImageDecoder((128, 128), ratio=0.875)');
    // The variants in-process (the same main() bin/beton.js runs), without a Node start each.
    const j = await cliInProcess('export', fixture, '--format', 'json');
    expect(j.code, j.err).toBe(0);
    // The default batch (256) capped at the file's samples, as beton profile does (issue 30).
    const samples = Number(/(\d+) samples/.exec(j.err)?.[1]);
    expect(samples).toBeLessThan(256);
    expect((JSON.parse(j.out) as { loader: { batchSize: number } }).loader.batchSize).toBe(samples);
  });

  it('beton export FILE writes a pipeline for every field type, clips with --clip-decoder (CLI)', async () => {
    const file = join(dir, 'all.beton');
    const clip = { frames: new Uint8Array(2 * 4 * 2 * 3), width: 4, height: 2, count: 2 };
    await new DatasetWriter(
      file,
      {
        clip: new VideoClipField({ writeMode: 'raw' }),
        n: new IntField(),
        x: new FloatField(),
        a: new NDArrayField({ dtype: '<u2', shape: [2] }),
        b: new BytesField(),
        j: new JSONField(),
      },
      { numWorkers: 0 },
    ).write([{ clip, n: 1, x: 0.5, a: new Uint16Array([1, 2]), b: new Uint8Array([1]), j: { k: 1 } }]);
    // In-process: the process case is the test above.
    const run = (...args: string[]): Promise<InProcessResult> => cliInProcess('export', file, ...args);
    const r = await run('--clip-decoder', 'rrc:32', '--flip', '--order', 'sequential');
    expect(r.code, r.err).toBe(0);
    const code = r.out;
    expect(pythonParses(code)).toBe('ok');
    expect(code).toContain(
      '"clip": [VideoClipRandomResizedCropDecoder((32, 32), scale=(0.08, 1), ratio=(0.75, 1.3333333333333333), flip=0.5), ToTensor()]',
    );
    expect(code).toContain('custom_fields={"clip": VideoClipField}');
    expect(code).toContain('"n": [IntDecoder(), ToTensor()]');
    expect(code).toContain('"x": [FloatDecoder(), ToTensor()]');
    expect(code).toContain('"a": [NDArrayAsSignedDecoder(), ToTensor()]');
    expect(code).toContain('"b": [BytesDecoder(), ToTensor()]');
    expect(code).toContain('"j": [BytesDecoder(), ToTensor()]');
    expect((await run('--no-flip')).out).toContain('"clip": [VideoClipDecoder(), ToTensor()]');
    // The default flips clips too, as beton profile's default pipeline flips images.
    expect((await run()).out).toMatch(/"clip": \[VideoClipDecoder\(.*flip=0.5.*\), ToTensor\(\)\]/);
    const bad = await run('--clip-decoder', 'center:32');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--clip-decoder expects simple or rrc:SIZE/);

    // The app's export (the service) reads the file's fields too: a disabled video field
    // still needs its class in custom_fields, or FFCV's Reader refuses the file.
    const service = new BetonService({ roots: null, host: 'electron', dbPath: join(dir, 'runs.sqlite') });
    try {
      const env = await service.call('export.generate', {
        loader: { file, batchSize: 1, pipelines: { clip: null, a: [{ decoder: 'ndarray' }] } },
        format: 'python',
      });
      if (!env.ok) throw new Error(env.error.message);
      const out = env.value as { text: string };
      expect(pythonParses(out.text)).toBe('ok');
      expect(out.text).toContain('custom_fields={"clip": VideoClipField}');
      expect(out.text).toContain('"a": [NDArrayAsSignedDecoder(), ToTensor()]');
    } finally {
      service.close();
    }
  });
});
