// "Exported code runs for real": the Python `beton export` writes runs one full epoch under
// the real FFCV for every field type (int, float, ndarray, torch tensor, bytes, json, RGB
// images, video clips with JPEG and raw frames), and where the pipelines are deterministic
// (sequential order, no random crop or flip) its batches equal our loader's byte for byte.
// The clip decoders are custom Python (FFCV has no video field) that FFCV compiles with
// numba: users found the first version failing on the first batch ("Untyped global name").
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseLoaderConfig, type LoaderConfig } from '../../core/api/loader-config.js';
import { BytesField } from '../../core/fields/bytes-field.js';
import { FloatField } from '../../core/fields/float-field.js';
import { IntField } from '../../core/fields/int-field.js';
import { JSONField } from '../../core/fields/json-field.js';
import { NDArrayField, TorchTensorField } from '../../core/fields/ndarray-field.js';
import { RGBImageField } from '../../core/fields/rgb-image-field.js';
import { VideoClipField } from '../../core/fields/video-clip-field.js';
import { Loader, type PipelineConfig } from '../../core/loader/loader.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';
import { checkPython } from '../helpers/python-check.js';
import { describeFfcv, runFfcv } from './ffcv.js';
import { cliOk } from '../helpers/cli.js';

const ROOT = resolve(__dirname, '../..');

interface PyRun {
  outputs: string[];
  batches: number;
  shapes: Record<string, number[][]>;
  dtypes: Record<string, string>;
  script_s: number;
  dump_s: number;
}

interface Case {
  name: string;
  /** `beton export` arguments (a .beton file and flags, or --loader FILE). */
  args: string[];
  /** Compare every batch with our loader's, byte for byte. */
  compare: boolean;
  /** Samples in the file. */
  samples: number;
  module: string;
  out: string;
  config: LoaderConfig;
}

/** Deterministic pseudo-random bytes (xorshift), so the files are the same on every run. */
function noise(seed: number): () => number {
  let x = seed * 2654435761 + 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) & 255;
  };
}

/** A textured RGB image: gradients plus noise, so JPEG, crops and resizes all have detail to get wrong. */
function picture(width: number, height: number, seed: number): { data: Uint8Array; width: number; height: number } {
  const rnd = noise(seed);
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 3;
      data[o] = (x * 255) / width + (rnd() >> 3);
      data[o + 1] = (y * 255) / height + (rnd() >> 3);
      data[o + 2] = ((x + y + seed * 17) * 5) & 255;
    }
  }
  return { data, width, height };
}

function clipOf(
  count: number,
  width: number,
  height: number,
  seed: number,
): { frames: Uint8Array; width: number; height: number; count: number; fps: [number, number] } {
  const frames = new Uint8Array(count * width * height * 3);
  for (let t = 0; t < count; t++) frames.set(picture(width, height, seed * 31 + t).data, t * width * height * 3);
  return { frames, width, height, count, fps: [25, 1] };
}

const cli = (args: string[]): string => cliOk(args);

const bytesOf = (a: ArrayBufferView): Buffer => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

describeFfcv('exported Python runs under the real FFCV', () => {
  const dir = mkdtempSync(join(tmpdir(), 'beton-export-runs-'));
  // KEEP_EXPORT_RUNS=1 keeps the files, generated code and dumps (and writes our side of a
  // mismatching batch beside FFCV's, as .ours) for a look with numpy.
  afterAll(() => (process.env.KEEP_EXPORT_RUNS ? console.log(dir) : rmSync(dir, { recursive: true, force: true })));
  const cases: Case[] = [];
  let py: Record<string, PyRun>;
  const W = 64;
  const H = 48;

  /** Exports Python (and the validated config, for our loader) with the CLI. */
  const add = (name: string, args: string[], compare: boolean, samples: number): void => {
    const module = join(dir, `${name}.py`);
    cli(['export', ...args, '-o', module]);
    const json = JSON.parse(cli(['export', ...args, '--format', 'json'])) as { loader: unknown };
    const parsed = parseLoaderConfig(json.loader);
    if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
    cases.push({ name, args, compare, samples, module, out: join(dir, 'out', name), config: parsed.value });
  };
  const loaderJson = (name: string, config: Record<string, unknown>): string => {
    const file = join(dir, `${name}.loader.json`);
    writeFileSync(file, JSON.stringify(config));
    return file;
  };

  beforeAll(async () => {
    if (!existsSync(join(ROOT, 'dist/core/cli/main.js'))) throw new Error('the CLI is not built: run `npm run build:ts` first');

    // Every scalar/array/bytes field type (12 samples: 3 full batches of 4).
    const scalars = join(dir, 'scalars.beton');
    await new DatasetWriter(
      scalars,
      {
        label: new IntField(),
        score: new FloatField(),
        arr: new NDArrayField({ dtype: '<f4', shape: [2, 3] }),
        counts: new NDArrayField({ dtype: '<u2', shape: [5] }),
        tensor: new TorchTensorField({ dtype: '<i2', shape: [4] }),
        blob: new BytesField(),
        meta: new JSONField(),
      },
      { numWorkers: 0 },
    ).write(
      Array.from({ length: 12 }, (_, i) => {
        const rnd = noise(i + 1);
        return {
          label: i * 7 - 20,
          score: i === 3 ? Number.NaN : i / 3 - 1,
          arr: Float32Array.from({ length: 6 }, (_, k) => (i - k) * 0.37),
          counts: Uint16Array.from({ length: 5 }, (_, k) => (i * 9973 + k * 4099) & 0xffff),
          tensor: Int16Array.from({ length: 4 }, (_, k) => (k - 2) * 1000 * i),
          // No empty values: FFCV's reader finds an object's size by its pointer in the
          // allocation table, and an empty allocation shares the pointer of the next object,
          // which FFCV then reads as empty too (FFCV writes the same table; our loader is right).
          blob: Uint8Array.from({ length: 1 + ((i * 13) % 40) }, rnd),
          meta: { i, name: `sample ${i} — ☃`, tags: Array.from({ length: i % 4 }, (_, k) => k * i), ok: i % 2 === 0 },
        };
      }),
    );
    add('scalars', [scalars, '--order', 'sequential', '--batch-size', '4', '--workers', '1'], true, 12);

    // RGB images of one size, JPEG and raw.
    const images = join(dir, 'images.beton');
    await new DatasetWriter(
      images,
      { jpg: new RGBImageField({ writeMode: 'jpg' }), raw: new RGBImageField({ writeMode: 'raw' }), label: new IntField() },
      { numWorkers: 0 },
    ).write(Array.from({ length: 12 }, (_, i) => ({ jpg: picture(40, 30, i), raw: picture(40, 30, 100 + i), label: i })));
    add('images', [images, '--order', 'sequential', '--decoder', 'simple', '--no-flip', '--batch-size', '4', '--workers', '1'], true, 12);

    // Images of several sizes (all 4:3): centre crop, and the whole-image random-resized crop
    // (scale 1, the images' ratio: deterministic), FFCV's own decoders against ours; a flip
    // with p = 1, NormalizeImage and channels-first as exported.
    const varImages = join(dir, 'images_var.beton');
    const sizes: Array<[number, number]> = [
      [40, 30],
      [64, 48],
      [32, 24],
      [48, 36],
      [80, 60],
    ];
    await new DatasetWriter(
      varImages,
      { jpg: new RGBImageField({ writeMode: 'jpg' }), raw: new RGBImageField({ writeMode: 'raw' }) },
      { numWorkers: 0 },
    ).write(
      Array.from({ length: 10 }, (_, i) => ({ jpg: picture(...sizes[i % 5]!, 200 + i), raw: picture(...sizes[(i + 2) % 5]!, 300 + i) })),
    );
    add(
      'images_crop',
      [
        '--loader',
        loaderJson('images_crop', {
          file: varImages,
          batchSize: 4,
          numWorkers: 1,
          order: 'sequential',
          dropLast: false,
          pipelines: {
            jpg: [
              { decoder: 'center_crop', size: [24, 24], ratio: 0.875 },
              { op: 'normalize', mean: [120.5, 110, 100.25], std: [60, 61.5, 59], dtype: 'float32' },
              { op: 'to_chw' },
            ],
            raw: [
              { decoder: 'random_resized_crop', size: [27, 36], scale: [1, 1], ratio: [4 / 3, 4 / 3] },
              { op: 'random_horizontal_flip', p: 1 },
              { op: 'to_chw' },
            ],
          },
        }),
      ],
      true,
      10,
    );

    // A folder of videos (UCF101's layout), built into clips with the CLI, as users do.
    const videos = join(dir, 'videos');
    const sources = ['testsrc2', 'testsrc', 'rgbtestsrc', 'smptebars'];
    sources.forEach((src, i) => {
      const cls = join(videos, i < 2 ? 'ApplyEyeMakeup' : 'Basketball');
      mkdirSync(cls, { recursive: true });
      // 16 frames at 10 fps, with temporal noise so every frame differs.
      execFileSync('ffmpeg', [
        '-y',
        '-v',
        'error',
        '-f',
        'lavfi',
        '-i',
        `${src}=s=${W}x${H}:r=10:d=1.6`,
        '-vf',
        'noise=alls=24:allf=t',
        '-c:v',
        'mpeg4',
        '-q:v',
        '2',
        '-pix_fmt',
        'yuv420p',
        join(cls, `v_${src}.avi`),
      ]);
    });
    const clips = join(dir, 'clips.beton');
    const build = join(dir, 'clips.build.json');
    writeFileSync(
      build,
      JSON.stringify({
        source: { type: 'video_folder', path: videos, clipLength: 6, stride: 5 },
        output: clips,
        numWorkers: 1,
        fields: [
          { name: 'clip', type: 'video_clip', writeMode: 'jpg', frames: 6 },
          { name: 'raw', type: 'video_clip', writeMode: 'raw', columns: ['clip'] },
          { name: 'label', type: 'int' },
          { name: 'video_id', type: 'int' },
          { name: 'start_frame', type: 'int' },
        ],
      }),
    );
    cli(['build', '--config', build]);
    // 4 videos x 3 clips (starts 0, 5, 10): the default pipelines, whole frames.
    add('clips', [clips, '--order', 'sequential', '--no-flip', '--batch-size', '4', '--workers', '1'], true, 12);
    // One resized crop per clip: the whole frame (scale 1, the frames' own 4:3 ratio) so the
    // crop is deterministic and the resize (JPEG decode + INTER_AREA) is what is compared.
    // Two threads, as an export without --workers on this machine: FFCV runs both decoders'
    // sample loops with numba's prange (compiling that takes tens of seconds here, so the
    // other cases use one thread).
    const whole = { scale: [1, 1], ratio: [4 / 3, 4 / 3] };
    add(
      'clips_2threads',
      [
        '--loader',
        loaderJson('clips_2threads', {
          file: clips,
          batchSize: 5,
          numWorkers: 2,
          order: 'sequential',
          dropLast: false,
          pipelines: {
            clip: [{ decoder: 'clip_random_resized_crop', size: [24, 32], ...whole, temporal: { mode: 'every', k: 2 } }],
            // Planned for 8 stored frames: the 6-frame clips repeat their last frame.
            raw: [{ decoder: 'clip_simple', frames: 8 }],
            label: [{ decoder: 'int' }],
            video_id: null,
            start_frame: null,
          },
        }),
      ],
      true,
      12,
    );
    // Deterministic flip (p = 1) and every 4th frame on raw clips; a random window of 3 and a
    // coin-flip mirror on JPEG clips (checked against the whole clips below).
    add(
      'clips_window',
      [
        '--loader',
        loaderJson('clips_window', {
          file: clips,
          batchSize: 4,
          numWorkers: 1,
          order: 'sequential',
          pipelines: {
            clip: [{ decoder: 'clip_simple', temporal: { mode: 'random_window', length: 3 }, flip: 0.5 }],
            raw: [{ decoder: 'clip_simple', temporal: { mode: 'every', k: 4 }, flip: 1 }],
            label: null,
            video_id: null,
            start_frame: null,
          },
        }),
      ],
      false,
      12,
    );
    // Random order, random crops and flips: runs; shapes only.
    add(
      'clips_random',
      [clips, '--order', 'random', '--clip-decoder', 'rrc:32', '--flip', '--batch-size', '4', '--workers', '1'],
      false,
      12,
    );

    // Clips of several lengths and frame sizes (all 4:3), JPEG and raw: crop decoders only.
    const varClips = join(dir, 'clips_var.beton');
    const shapes: Array<[number, number, number]> = [
      [6, 64, 48],
      [3, 40, 30],
      [5, 48, 36],
      [6, 64, 48],
      [2, 32, 24],
      [4, 40, 30],
      [1, 48, 36],
    ];
    await new DatasetWriter(
      varClips,
      { clip: new VideoClipField({ writeMode: 'jpg', jpegQuality: 85 }), raw: new VideoClipField({ writeMode: 'raw' }) },
      { numWorkers: 0 },
    ).write(shapes.map(([n, w, h], i) => ({ clip: clipOf(n, w, h, i), raw: clipOf(n, w, h, 50 + i) })));
    add(
      'clips_var',
      [
        '--loader',
        loaderJson('clips_var', {
          file: varClips,
          batchSize: 3,
          numWorkers: 1,
          order: 'sequential',
          dropLast: false,
          pipelines: {
            clip: [{ decoder: 'clip_random_resized_crop', size: [18, 24], ...whole }],
            // Every 2nd frame, resized to 36x20: another aspect, and an enlargement of the 32x24 clips.
            raw: [{ decoder: 'clip_random_resized_crop', size: [36, 20], ...whole, temporal: { mode: 'every', k: 2 } }],
          },
        }),
      ],
      true,
      7,
    );

    py = runFfcv<Record<string, PyRun>>(
      'export_runs.py',
      { runs: cases.map((c) => ({ name: c.name, module: c.module, out: c.out })) },
      400_000,
    ).result;
  }, 600_000);

  it('the exported code compiles and imports only public FFCV names', () => {
    for (const c of cases) expect(checkPython(readFileSync(c.module, 'utf8')), c.name).toBe('ok');
  });

  it('every exported loader runs one full epoch as a script and again for the dump', () => {
    for (const c of cases) {
      const r = py[c.name]!;
      const round = c.config.dropLast ? Math.floor : Math.ceil;
      expect(r.batches, c.name).toBe(round(c.samples / c.config.batchSize));
      expect(r.outputs, c.name).toEqual(
        Object.entries(c.config.pipelines)
          .filter(([, p]) => p !== null)
          .map(([n]) => n),
      );
    }
    console.log(
      `FFCV seconds per export (script epoch incl. numba compile / dump epoch): ${cases.map((c) => `${c.name} ${py[c.name]!.script_s}/${py[c.name]!.dump_s}`).join(', ')}`,
    );
    expect(py.clips_random!.shapes.clip![0]).toEqual([4, 6, 32, 32, 3]);
    expect(py.clips_random!.shapes.raw![0]).toEqual([4, 6, 32, 32, 3]);
    expect(py.scalars!.dtypes).toMatchObject({
      label: 'int64',
      score: 'float64',
      arr: 'float32',
      counts: 'int16',
      tensor: 'int16',
      blob: 'uint8',
      meta: 'uint8',
    });
  });

  it("FFCV's batches equal our loader's byte for byte (sequential, deterministic decoders)", async () => {
    const summary: string[] = [];
    for (const c of cases.filter((x) => x.compare)) {
      const r = py[c.name]!;
      const cfg = c.config;
      const loader = await Loader.open(cfg.file, {
        batchSize: cfg.batchSize,
        numWorkers: 2,
        order: cfg.order,
        seed: cfg.seed,
        dropLast: cfg.dropLast,
        osCache: cfg.osCache,
        pipelines: cfg.pipelines as Record<string, PipelineConfig>,
      });
      let b = 0;
      try {
        for await (const batch of loader) {
          expect(Object.keys(batch.outputs).sort(), c.name).toEqual([...r.outputs].sort());
          for (const name of r.outputs) {
            const ours = bytesOf(batch.get(name).data);
            const theirs = readFileSync(join(c.out, `${name}.${b}.bin`));
            if (!ours.equals(theirs)) {
              const at = ours.findIndex((v, i) => v !== theirs[i]);
              if (process.env.KEEP_EXPORT_RUNS) writeFileSync(join(c.out, `${name}.${b}.ours`), ours);
              expect.fail(
                `${c.name} batch ${b} "${name}": ${ours.length} bytes (ours, shape ${batch.get(name).shape}) vs ${theirs.length} (FFCV, shape ${r.shapes[name]![b]}); first difference at byte ${at}`,
              );
            }
          }
          b++;
        }
      } finally {
        await loader.close();
      }
      expect(b, c.name).toBe(r.batches);
      summary.push(`${c.name}: ${b} batches x ${r.outputs.length} outputs (${r.outputs.join(', ')})`);
    }
    console.log(`compared byte for byte:\n  ${summary.join('\n  ')}`);
  });

  it('clip decoders: p = 1 mirrors every clip, a random window is 3 consecutive stored frames, p = 0.5 mirrors some', async () => {
    const T = 6;
    const frame = H * W * 3;
    // Whole clips from the deterministic export (already shown equal to ours).
    const whole = (sample: number, field: string): Buffer => {
      const b = Math.floor(sample / 4);
      return readFileSync(join(cases.find((c) => c.name === 'clips')!.out, `${field}.${b}.bin`)).subarray(
        (sample % 4) * T * frame,
        ((sample % 4) + 1) * T * frame,
      );
    };
    const mirror = (f: Buffer): Buffer => {
      const m = Buffer.alloc(f.length);
      for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) f.copy(m, (y * W + (W - 1 - x)) * 3, (y * W + x) * 3, (y * W + x) * 3 + 3);
      return m;
    };
    const r = py.clips_window!;
    const out = cases.find((c) => c.name === 'clips_window')!.out;
    let mirrored = 0;
    let samples = 0;
    for (let b = 0; b < r.batches; b++) {
      const raw = readFileSync(join(out, `raw.${b}.bin`));
      const clip = readFileSync(join(out, `clip.${b}.bin`));
      expect(r.shapes.raw![b]!.slice(1)).toEqual([2, H, W, 3]);
      expect(r.shapes.clip![b]!.slice(1)).toEqual([3, H, W, 3]);
      for (let k = 0; k < r.shapes.raw![b]![0]!; k++) {
        const id = b * 4 + k;
        const full = whole(id, 'raw');
        for (const [t, stored] of [
          [0, 0],
          [1, 4],
        ] as const) {
          expect(
            raw.subarray((k * 2 + t) * frame, (k * 2 + t + 1) * frame).equals(mirror(full.subarray(stored * frame, (stored + 1) * frame))),
            `raw sample ${id} frame ${t}`,
          ).toBe(true);
        }
        const jpg = whole(id, 'clip');
        const got = clip.subarray(k * 3 * frame, (k + 1) * 3 * frame);
        const match = (flip: boolean): boolean =>
          [0, 1, 2, 3].some((start) =>
            [0, 1, 2].every((t) => {
              const want = jpg.subarray((start + t) * frame, (start + t + 1) * frame);
              return got.subarray(t * frame, (t + 1) * frame).equals(flip ? mirror(want) : want);
            }),
          );
        const plain = match(false);
        const flipped = match(true);
        expect(plain || flipped, `clip sample ${id}: not a window of its stored frames, plain or mirrored`).toBe(true);
        if (flipped && !plain) mirrored++;
        samples++;
      }
    }
    expect(samples).toBe(12);
    // p = 0.5 over 12 clips: all plain or all mirrored has probability 2^-11.
    expect(mirrored).toBeGreaterThan(0);
    expect(mirrored).toBeLessThan(samples);
  });
});
