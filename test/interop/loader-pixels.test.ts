// Our Loader against FFCV's own Loader, batch by batch, byte for byte: on files FFCV's
// DatasetWriter wrote (ImageNet-like JPEGs of varied sizes; jpg/raw/smart/proportion), on
// the golden FFCV fixtures, and on files our DatasetWriter wrote from the same JPEGs. The
// decoders are the deterministic ones (SimpleRGB, CenterCrop, RandomResizedCrop forced to
// the whole square by scale = ratio = (1, 1)), followed by RandomHorizontalFlip(p = 0 / 1),
// NormalizeImage, ToTensor/ToTorchImage (our ToCHW) and Convert. Below the loaders, FFCV's
// own resize (libffcv resize_crop → cv::resize INTER_AREA) and decode (imdecode, fast DCT)
// are compared with ours on random crops, shrinking, enlarging and mixed.
// One Python process does all FFCV work (py/loader_pixels.py).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Rng, mixSeed } from '../../bench/lib/prng.js';
import { classPalette, synthImage } from '../../bench/lib/synth-image.js';
import { IntField } from '../../core/fields/int-field.js';
import { RGBImageField, cappedSize, type RGBImageFieldOptions } from '../../core/fields/rgb-image-field.js';
import { CropResizer, decodeJpegInto } from '../../core/loader/image-decode.js';
import { Loader, type PipelineConfig } from '../../core/loader/loader.js';
import { cropResizeRGB } from '../../core/native/area-resize.js';
import { jpegDecodeRGB } from '../../core/native/jpeg-codec.js';
import { roundHalfEven } from '../../core/pipeline/crop.js';
import type { ElementType } from '../../core/pipeline/dtypes.js';
import {
  CenterCropRGBImageDecoder,
  Convert,
  IntDecoder,
  NormalizeImage,
  RandomHorizontalFlip,
  RandomResizedCropRGBImageDecoder,
  SimpleRGBImageDecoder,
  ToCHW,
  type DecoderSpec,
  type OpSpec,
  type PipelineStep,
} from '../../core/pipeline/spec.js';
import { Reader } from '../../core/reader/reader.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';
import { fixturePath } from '../helpers/fixtures.js';
import { describeFfcv, runFfcv } from './ffcv.js';

// --- the pipelines, as data both sides build from --------------------------------------

type Dec =
  | { kind: 'simple' }
  | { kind: 'int' }
  | { kind: 'center_crop'; size: [number, number]; ratio: number }
  | { kind: 'rrc'; size: [number, number]; scale: [number, number]; ratio: [number, number] };
type Op =
  | { op: 'flip'; p: number }
  | { op: 'normalize'; mean: number[]; std: number[]; dtype: 'float16' | 'float32' | 'float64' }
  | { op: 'to_tensor' }
  | { op: 'to_torch_image'; channels_last?: boolean }
  | { op: 'convert'; dtype: ElementType };
interface Out {
  name: string;
  source: string;
  decoder: Dec;
  ops?: Op[];
}
interface Run {
  name: string;
  path: string;
  batch_size: number;
  order: 'sequential' | 'random';
  seed?: number;
  drop_last: boolean;
  indices?: number[];
  epochs?: number;
  disable: string[];
  outputs: Out[];
  out_dir: string;
}

const ours = (d: Dec): DecoderSpec => {
  switch (d.kind) {
    case 'simple':
      return SimpleRGBImageDecoder();
    case 'int':
      return IntDecoder();
    case 'center_crop':
      return CenterCropRGBImageDecoder(d.size, d.ratio);
    case 'rrc':
      return RandomResizedCropRGBImageDecoder(d.size, d.scale, d.ratio);
  }
};
const ourOps = (ops: Op[]): OpSpec[] =>
  ops.flatMap((o): OpSpec[] => {
    switch (o.op) {
      case 'flip':
        return [RandomHorizontalFlip(o.p)];
      case 'normalize':
        return [NormalizeImage(o.mean, o.std, o.dtype)];
      case 'to_tensor':
        return []; // FFCV's numpy → torch hand-over; our arrays need none
      case 'to_torch_image':
        return [ToCHW()]; // FFCV's channels-last view is dumped as (C, H, W)
      case 'convert':
        return [Convert(o.dtype)];
    }
  });

// ImageNet statistics in 0–255 units, as FFCV's ImageNet example.
const MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255];
const STD = [0.229 * 255, 0.224 * 255, 0.225 * 255];
const CC: Dec = { kind: 'center_crop', size: [64, 64], ratio: 224 / 256 };
const CC1: Dec = { kind: 'center_crop', size: [64, 64], ratio: 1 };
const CC_RECT: Dec = { kind: 'center_crop', size: [48, 80], ratio: 224 / 256 };
const RRC: Dec = { kind: 'rrc', size: [64, 64], scale: [1, 1], ratio: [1, 1] };

const img = (name: string, decoder: Dec, ops: Op[] = []): Out => ({ name, source: 'image', decoder, ops });
/** Every deterministic crop decoder, bare. */
const decoders = (small = false): Out[] =>
  small
    ? [img('cc1', CC1), img('cc1_rect', { ...CC_RECT, ratio: 1 }), img('rrc', RRC), img('rrc_rect', { ...RRC, size: [40, 24] })]
    : [img('cc', CC), img('cc1', CC1), img('cc_rect', CC_RECT), img('rrc', RRC)];
/** Decoders followed by the transforms. */
const transforms = (): Out[] => [
  img('cc_flip1', CC, [{ op: 'flip', p: 1 }]),
  img('rrc_flip0_norm32_chw', RRC, [
    { op: 'flip', p: 0 },
    { op: 'normalize', mean: MEAN, std: STD, dtype: 'float32' },
    { op: 'to_tensor' },
    { op: 'to_torch_image' },
  ]),
  img('cc_norm16_chw', CC, [
    { op: 'normalize', mean: MEAN, std: STD, dtype: 'float16' },
    { op: 'to_tensor' },
    { op: 'to_torch_image', channels_last: false },
  ]),
  img('cc_norm64', CC, [{ op: 'normalize', mean: MEAN, std: STD, dtype: 'float64' }]),
  img('cc1_chw_f32', CC1, [{ op: 'to_tensor' }, { op: 'to_torch_image' }, { op: 'convert', dtype: 'float32' }]),
  img('cc_flip1_norm32_i16', CC, [
    { op: 'flip', p: 1 },
    { op: 'normalize', mean: MEAN, std: STD, dtype: 'float32' },
    { op: 'to_tensor' },
    { op: 'convert', dtype: 'int16' },
  ]),
  img('cc_norm64_f16', CC, [
    { op: 'normalize', mean: MEAN, std: STD, dtype: 'float64' },
    { op: 'to_tensor' },
    { op: 'convert', dtype: 'float16' },
  ]),
  img('cc_norm32_f64', CC, [
    { op: 'normalize', mean: MEAN, std: STD, dtype: 'float32' },
    { op: 'to_tensor' },
    { op: 'convert', dtype: 'float64' },
  ]),
  img('cc_i8', CC, [{ op: 'to_tensor' }, { op: 'convert', dtype: 'int8' }]),
  img('cc_norm32_u8', CC, [
    { op: 'normalize', mean: MEAN, std: STD, dtype: 'float32' },
    { op: 'to_tensor' },
    { op: 'convert', dtype: 'uint8' },
  ]),
];
const simple = (): Out[] => [
  img('simple', { kind: 'simple' }),
  img('simple_flip1_chw', { kind: 'simple' }, [{ op: 'flip', p: 1 }, { op: 'to_tensor' }, { op: 'to_torch_image' }]),
  img('simple_norm16_chw', { kind: 'simple' }, [
    { op: 'normalize', mean: MEAN, std: STD, dtype: 'float16' },
    { op: 'to_tensor' },
    { op: 'to_torch_image' },
  ]),
  img('cc1_small', { kind: 'center_crop', size: [32, 32], ratio: 1 }),
  img('rrc_rect', { ...RRC, size: [24, 40] }),
];
const ID: Out = { name: 'sample_id', source: 'id', decoder: { kind: 'int' } };
/** Convert on an IntField (int64 → float32 / int16): the non-image cast. */
const labelConverts = (): Out[] => [
  { name: 'id_f32', source: 'id', decoder: { kind: 'int' }, ops: [{ op: 'to_tensor' }, { op: 'convert', dtype: 'float32' }] },
  { name: 'id_i16', source: 'id', decoder: { kind: 'int' }, ops: [{ op: 'to_tensor' }, { op: 'convert', dtype: 'int16' }] },
];

/**
 * FFCV's forced "whole square" crop (scale = ratio = (1, 1)) is deterministic unless the
 * first try fits: side c = round(sqrt(w·h)) ≤ min(w, h) with w ≠ h, e.g. 255×256 (c = 255),
 * where the offset is drawn from numba's unseeded generator. Such rows are left out.
 */
function forcedCropIsRandom(w: number, h: number): boolean {
  const c = roundHalfEven(Math.sqrt(w * h));
  return c <= Math.min(w, h) && (c !== w || c !== h);
}

const RESIZE_KINDS = ['integer', 'shrink', 'copy', 'enlarge', 'mixed'] as const;
/** Which branch of cv::resize(INTER_AREA) a crop → output size takes. */
function resizeKind(cw: number, ch: number, outW: number, outH: number): string {
  if (cw === outW && ch === outH) return 'copy';
  if (outW > cw || outH > ch) return outW >= cw && outH >= ch ? 'enlarge' : 'mixed';
  return cw % outW === 0 && ch % outH === 0 ? (cw === 2 * outW && ch === 2 * outH ? 'integer 2x2' : 'integer') : 'shrink';
}

// --- source images ------------------------------------------------------------------------

/** [width, height] of the varied set: ImageNet-like 300–500 px plus shapes that reach every resize path. */
function variedSizes(): Array<[number, number]> {
  const special: Array<[number, number]> = [
    [147, 200],
    [220, 300],
    [128, 170],
    [170, 128],
    [192, 250],
    [256, 192],
    [300, 512],
    [64, 100],
    [100, 64],
    [64, 64],
    [73, 73],
    [32, 45],
    [45, 32],
    [48, 33],
    [20, 60],
    [7, 300],
    [300, 9],
    [2, 40],
    [40, 3],
    [16, 16],
    [75, 77],
    [256, 256],
    [255, 257],
    [9, 9],
    [81, 37],
    [5, 2],
  ];
  const rng = new Rng(mixSeed(10, 0));
  const out: Array<[number, number]> = [...special];
  while (out.length < 120) {
    const w = rng.int(300, 500);
    const h = rng.int(300, 500);
    const [sw, sh] = cappedSize(w, h, 256);
    if (!forcedCropIsRandom(sw, sh)) out.push([w, h]);
  }
  for (const [w, h] of out)
    if (forcedCropIsRandom(...cappedSize(w, h, 256))) throw new Error(`size ${w}x${h} makes FFCV's forced crop random`);
  return out;
}

async function writeJpegs(dir: string, sizes: Array<[number, number]>, seed: number): Promise<string[]> {
  mkdirSync(dir, { recursive: true });
  const palettes = Array.from({ length: 4 }, (_, k) => classPalette(k, 4, new Rng(mixSeed(seed, -1 - k))));
  return Promise.all(
    sizes.map(async ([w, h], i) => {
      const px = synthImage(w, h, palettes[i % 4]!, new Rng(mixSeed(seed, i)));
      const p = join(dir, `${String(i).padStart(4, '0')}.jpg`);
      await sharp(px, { raw: { width: w, height: h, channels: 3 } })
        .jpeg({ quality: 90 })
        .toFile(p);
      return p;
    }),
  );
}

// --- comparing ---------------------------------------------------------------------------

interface FfcvOutput {
  dtype: string;
  shape: number[];
  file: string;
}
interface FfcvRun {
  outputs: Record<string, FfcvOutput>;
  epochs: number[][];
  seconds: number;
}
interface FfcvResult {
  runs: Record<string, FfcvRun>;
  timings: Record<string, number>;
}

const NUMPY: Record<string, ElementType> = {
  '|u1': 'uint8',
  '|i1': 'int8',
  '<i2': 'int16',
  '<i4': 'int32',
  '<i8': 'int64',
  '<f2': 'float16',
  '<f4': 'float32',
  '<f8': 'float64',
};

interface Compared {
  run: string;
  batches: number;
  rows: number;
  outputs: number;
  skippedRows: number;
  mismatches: string[];
}

async function compareRun(run: Run, ffcv: FfcvRun): Promise<Compared> {
  const pipelines: Record<string, PipelineConfig> = {};
  for (const n of run.disable) pipelines[n] = null;
  for (const o of run.outputs) pipelines[o.name] = { source: o.source, steps: [ours(o.decoder), ...ourOps(o.ops ?? [])] as PipelineStep[] };
  const reader = await Reader.open(run.path);
  const imageField = reader.fields.findIndex((f) => f.name === 'image');
  const sizeOf = (id: number): [number, number] => {
    const m = reader.fieldMetadata(id, imageField);
    return [m.getUint16(1, true), m.getUint16(3, true)];
  };
  const loader = await Loader.open(run.path, {
    batchSize: run.batch_size,
    order: run.order,
    seed: run.seed ?? 0,
    dropLast: run.drop_last,
    numWorkers: 2,
    pipelines,
    ...(run.indices ? { indices: run.indices } : {}),
  });
  const res: Compared = { run: run.name, batches: 0, rows: 0, outputs: run.outputs.length, skippedRows: 0, mismatches: [] };
  const theirs = Object.fromEntries(Object.entries(ffcv.outputs).map(([n, o]) => [n, { ...o, bytes: readFileSync(o.file), at: 0 }]));
  try {
    expect(Object.keys(theirs).sort()).toEqual(run.outputs.map((o) => o.name).sort());
    for (let e = 0; e < (run.epochs ?? 1); e++) {
      const sizes: number[] = [];
      for await (const batch of loader) {
        sizes.push(batch.size);
        res.batches++;
        res.rows += batch.size;
        for (const o of run.outputs) {
          const t = theirs[o.name]!;
          const mine = batch.get(o.name);
          if (NUMPY[t.dtype] !== mine.dtype) res.mismatches.push(`${o.name}: dtype ${mine.dtype}, FFCV ${t.dtype}`);
          expect(mine.shape.slice(1), o.name).toEqual(t.shape);
          const a = Buffer.from(mine.data.buffer, mine.data.byteOffset, mine.data.byteLength);
          const b = t.bytes.subarray(t.at, t.at + a.length);
          t.at += a.length;
          if (a.equals(b)) continue;
          const row = a.length / batch.size;
          const randomCrop = o.decoder.kind === 'rrc' && o.decoder.scale[0] === 1 && o.decoder.ratio[0] === 1;
          for (let r = 0; r < batch.size; r++) {
            const ra = a.subarray(r * row, (r + 1) * row);
            const rb = b.subarray(r * row, (r + 1) * row);
            if (ra.equals(rb)) continue;
            const id = batch.sampleIds[r]!;
            const [w, h] = sizeOf(id);
            if (randomCrop && forcedCropIsRandom(w, h)) {
              res.skippedRows++;
              continue;
            }
            let n = 0;
            let max = 0;
            for (let i = 0; i < row; i++) {
              if (ra[i] === rb[i]) continue;
              n++;
              max = Math.max(max, Math.abs(ra[i]! - rb[i]!));
            }
            res.mismatches.push(
              `${o.name}: epoch ${e} batch ${batch.index} sample ${id} (${w}x${h}): ${n}/${row} bytes differ (max byte diff ${max})`,
            );
          }
        }
      }
      expect(sizes, `epoch ${e} batch sizes`).toEqual(ffcv.epochs[e]);
    }
  } finally {
    await loader.close();
    reader.close();
  }
  for (const [n, t] of Object.entries(theirs)) expect(t.at, `${n}: bytes left in FFCV's dump`).toBe(t.bytes.length);
  return res;
}

// --- the suite -----------------------------------------------------------------------------

const dir = mkdtempSync(join(tmpdir(), 'beton-pixels-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeFfcv("loader pixels: our Loader yields FFCV's batches byte for byte", () => {
  const runs: Run[] = [];
  let ffcv: FfcvResult;
  const resizeCases: Array<{
    offset: number;
    w: number;
    h: number;
    crop: [number, number, number, number];
    out: [number, number];
    kind: string;
  }> = [];
  let resizeSource: Uint8Array;
  const jpegCases: Array<{
    offset: number;
    size: number;
    w: number;
    h: number;
    crops: Array<{ crop: [number, number, number, number]; out: [number, number] }>;
  }> = [];
  let jpegBytes: Uint8Array;

  beforeAll(async () => {
    const t0 = Date.now();
    const out = join(dir, 'out');
    mkdirSync(out);
    const varied = variedSizes();
    const variedJpegs = await writeJpegs(join(dir, 'varied'), varied, 1);
    const fixedJpegs = await writeJpegs(
      join(dir, 'fixed'),
      Array.from({ length: 24 }, () => [75, 50] as [number, number]),
      2,
    );
    const labels = (n: number): number[] => Array.from({ length: n }, (_, i) => i % 4);

    // Our writer, from the same JPEG files.
    const ourFile = async (name: string, files: string[], opts: RGBImageFieldOptions): Promise<string> => {
      const p = join(dir, `${name}.beton`);
      await new DatasetWriter(
        p,
        { image: new RGBImageField({ jpegQuality: 90, ...opts }), label: new IntField(), id: new IntField() },
        { numWorkers: 2 },
      ).write(files.map((f, i) => ({ image: f, label: i % 4, id: i })));
      return p;
    };
    const smart = { writeMode: 'smart' as const, maxResolution: 256, smartThreshold: 256 * 200 * 3 };
    const oursJpg = await ourFile('ours_jpg', variedJpegs, { writeMode: 'jpg', maxResolution: 256 });
    const oursRaw = await ourFile('ours_raw', variedJpegs, { writeMode: 'raw', maxResolution: 256 });
    const oursSmart = await ourFile('ours_smart', variedJpegs, smart);
    const oursFixed = await ourFile('ours_fixed', fixedJpegs, { writeMode: 'proportion', compressProbability: 0.5 });

    const ffcvFile = (name: string): string => join(dir, `${name}.beton`);
    const write = [
      { path: ffcvFile('ffcv_jpg'), images: variedJpegs, labels: labels(varied.length), mode: 'jpg', max_resolution: 256 },
      { path: ffcvFile('ffcv_raw'), images: variedJpegs, labels: labels(varied.length), mode: 'raw', max_resolution: 256 },
      {
        path: ffcvFile('ffcv_smart'),
        images: variedJpegs,
        labels: labels(varied.length),
        mode: 'smart',
        max_resolution: 256,
        smart_threshold: smart.smartThreshold,
      },
      {
        path: ffcvFile('ffcv_fixed'),
        images: fixedJpegs,
        labels: labels(fixedJpegs.length),
        mode: 'proportion',
        compress_probability: 0.5,
        seed: 3,
      },
    ];

    const run = (name: string, path: string, outputs: Out[], o: Partial<Run> = {}): void => {
      const fixture = path.includes('/fixtures/');
      runs.push({
        name,
        path,
        batch_size: 32,
        order: 'sequential',
        drop_last: false,
        disable: fixture ? ['image', 'label'] : ['image', 'label', 'id'],
        outputs: fixture ? outputs : [ID, ...outputs],
        out_dir: out,
        ...o,
      });
    };
    run('ffcv_jpg', ffcvFile('ffcv_jpg'), [...decoders(), ...transforms(), ...labelConverts()]);
    run('ffcv_raw', ffcvFile('ffcv_raw'), decoders(), { batch_size: 50 });
    run('ffcv_smart', ffcvFile('ffcv_smart'), decoders(), { order: 'random', seed: 7, batch_size: 25, drop_last: true, epochs: 2 });
    run('ffcv_fixed', ffcvFile('ffcv_fixed'), simple(), { batch_size: 10 });
    run('ours_jpg', oursJpg, decoders(), { order: 'random', seed: 3, batch_size: 25, epochs: 2 });
    run('ours_raw', oursRaw, decoders(), { indices: Array.from({ length: 60 }, (_, i) => (i * 7) % varied.length), batch_size: 16 });
    run('ours_smart', oursSmart, [...decoders(), ...transforms(), ...labelConverts()], { batch_size: 40 });
    run('ours_fixed', oursFixed, simple(), { batch_size: 7, drop_last: true });
    for (const f of ['images_jpg', 'images_raw', 'images_smart', 'images_proportion'])
      run(f, fixturePath(f), decoders(true), { batch_size: 16 });
    run('images_fixedsize', fixturePath('images_fixedsize'), simple(), { batch_size: 5 });

    // Resize units: noise sources (the hardest case for rounding), every path of cv::resize
    // INTER_AREA in turn: integer factors (2x2 has its own SIMD rounding), fractional
    // shrink, same size (a copy), enlargement, and one axis shrinking while the other grows.
    const rng = new Rng(mixSeed(99, 0));
    const chunks: Uint8Array[] = [];
    let offset = 0;
    for (let k = 0; k < 200; k++) {
      const w = k < 8 ? 1 + k : rng.int(1, 260);
      const h = k < 8 ? 8 - k : rng.int(1, 260);
      const px = Uint8Array.from({ length: w * h * 3 }, (_, i) =>
        i % 7 === 0 ? Math.floor(rng.next() * 256) : (i * 13 + Math.floor(rng.next() * 40)) & 255,
      );
      chunks.push(px);
      for (let c = 0; c < 5; c++) {
        const kind = RESIZE_KINDS[(k + c) % RESIZE_KINDS.length]!;
        let cw = rng.int(1, w);
        let ch = rng.int(1, h);
        let outW: number;
        let outH: number;
        if (kind === 'integer') {
          const fx = k % 4 === 0 ? 2 : rng.int(1, 4);
          const fy = k % 4 === 0 ? 2 : rng.int(1, 4);
          outW = Math.max(1, Math.floor(cw / fx));
          outH = Math.max(1, Math.floor(ch / fy));
          [cw, ch] = [Math.min(w, outW * fx), Math.min(h, outH * fy)];
        } else if (kind === 'shrink') [outW, outH] = [rng.int(1, cw), rng.int(1, ch)];
        else if (kind === 'copy') [outW, outH] = [cw, ch];
        else if (kind === 'enlarge') [outW, outH] = [cw + rng.int(1, 2 * cw), ch + rng.int(1, 2 * ch)];
        else [outW, outH] = c % 2 ? [cw + rng.int(1, 80), rng.int(1, ch)] : [rng.int(1, cw), ch + rng.int(1, 80)];
        const x = rng.int(0, w - cw);
        const y = rng.int(0, h - ch);
        resizeCases.push({ offset, w, h, crop: [y, y + ch, x, x + cw], out: [outH, outW], kind: resizeKind(cw, ch, outW, outH) });
      }
      offset += px.length;
    }
    resizeSource = Buffer.concat(chunks);
    writeFileSync(join(dir, 'resize.bin'), resizeSource);

    // Decode units: JPEGs of several subsamplings, qualities and odd sizes, random crops.
    const jchunks: Uint8Array[] = [];
    let joff = 0;
    const sub = ['4:2:0', '4:4:4'] as const;
    for (let k = 0; k < 24; k++) {
      const w = rng.int(1, 330);
      const h = rng.int(1, 330);
      const px = synthImage(w, h, classPalette(k % 4, 4, new Rng(k)), new Rng(mixSeed(5, k)));
      const jpeg = await sharp(px, { raw: { width: w, height: h, channels: 3 } })
        .jpeg({ quality: 60 + k, chromaSubsampling: sub[k % 2]!, progressive: k % 3 === 0 })
        .toBuffer();
      const crops = Array.from({ length: 6 }, (_, c) => {
        const cw = rng.int(1, w);
        const ch = rng.int(1, h);
        const x = rng.int(0, w - cw);
        const y = rng.int(0, h - ch);
        const up = c % 3 === 2;
        return {
          crop: [y, y + ch, x, x + cw] as [number, number, number, number],
          out: [up ? ch + rng.int(1, 40) : rng.int(1, ch), up ? rng.int(1, 2 * cw) : rng.int(1, cw)] as [number, number],
        };
      });
      jpegCases.push({ offset: joff, size: jpeg.length, w, h, crops });
      jchunks.push(jpeg);
      joff += jpeg.length;
    }
    jpegBytes = Buffer.concat(jchunks);
    writeFileSync(join(dir, 'jpegs.bin'), jpegBytes);

    const prep = Date.now() - t0;
    const r = runFfcv<FfcvResult>('loader_pixels.py', {
      write,
      resize: { source_file: join(dir, 'resize.bin'), out_file: join(dir, 'resize.out'), cases: resizeCases },
      decode: { jpeg_file: join(dir, 'jpegs.bin'), out_file: join(dir, 'jpegs.out'), jpegs: jpegCases },
      runs,
    });
    ffcv = r.result;
    process.stderr.write(`loader-pixels: sources + our files ${prep} ms, FFCV process ${r.ms} ms (${JSON.stringify(ffcv.timings)})\n`);
  }, 400_000);

  it('cv::resize INTER_AREA as FFCV calls it = our cropResizeRGB, on every path (shrink, integer, copy, enlarge, mixed)', () => {
    const theirs = readFileSync(join(dir, 'resize.out'));
    let at = 0;
    const bad: string[] = [];
    for (const c of resizeCases) {
      const [y0, y1, x0, x1] = c.crop;
      const src = resizeSource.subarray(c.offset, c.offset + c.w * c.h * 3);
      const mine = cropResizeRGB(src, c.w, c.h, { x: x0, y: y0, w: x1 - x0, h: y1 - y0 }, c.out[1], c.out[0]);
      const want = theirs.subarray(at, at + mine.length);
      at += mine.length;
      if (!Buffer.from(mine).equals(want)) {
        let n = 0;
        for (let i = 0; i < mine.length; i++) if (mine[i] !== want[i]) n++;
        bad.push(`${x1 - x0}x${y1 - y0} -> ${c.out[1]}x${c.out[0]}: ${n} bytes`);
      }
    }
    expect(at).toBe(theirs.length);
    const kinds: Record<string, number> = {};
    for (const c of resizeCases) kinds[c.kind] = (kinds[c.kind] ?? 0) + 1;
    process.stderr.write(`loader-pixels: cv::resize cases ${JSON.stringify(kinds)}\n`);
    for (const k of ['integer 2x2', 'integer', 'shrink', 'copy', 'enlarge', 'mixed']) expect(kinds[k], k).toBeGreaterThan(10);
    expect(bad, `${bad.length}/${resizeCases.length} resizes differ`).toEqual([]);
  });

  it("FFCV's decode (imdecode, fast DCT) + resize_crop = our whole-image decode and our CropResizer", () => {
    const theirs = readFileSync(join(dir, 'jpegs.out'));
    let at = 0;
    const bad: string[] = [];
    const resizer = new CropResizer();
    for (const j of jpegCases) {
      const jpeg = jpegBytes.subarray(j.offset, j.offset + j.size);
      const full = new Uint8Array(j.w * j.h * 3);
      decodeJpegInto(jpeg, full);
      const want = theirs.subarray(at, at + full.length);
      if (!Buffer.from(full).equals(want)) bad.push(`${j.w}x${j.h}: whole image`);
      // The fallback without TurboJPEG: the system libjpeg's decode (fast IDCT), then the resize.
      const sys = jpegDecodeRGB(jpeg, undefined, { fastDct: true, strict: true }).data;
      if (!Buffer.from(sys).equals(want)) bad.push(`${j.w}x${j.h}: whole image, system libjpeg`);
      at += full.length;
      for (const c of j.crops) {
        const [y0, y1, x0, x1] = c.crop;
        const rect = { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
        const dst = new Uint8Array(c.out[0] * c.out[1] * 3);
        resizer.run(false, jpeg, j.w, j.h, rect, c.out[1], c.out[0], dst);
        const wantCrop = theirs.subarray(at, at + dst.length);
        if (!Buffer.from(dst).equals(wantCrop)) bad.push(`${j.w}x${j.h}: crop ${JSON.stringify(c)}`);
        if (!Buffer.from(cropResizeRGB(sys, j.w, j.h, rect, c.out[1], c.out[0])).equals(wantCrop))
          bad.push(`${j.w}x${j.h}: crop ${JSON.stringify(c)}, system libjpeg`);
        at += dst.length;
      }
    }
    expect(at).toBe(theirs.length);
    expect(bad).toEqual([]);
  });

  const summary: Compared[] = [];
  afterAll(() => {
    if (summary.length === 0) return;
    const lines = summary.map(
      (s) =>
        `  ${s.run.padEnd(18)} ${String(s.outputs).padStart(2)} outputs × ${String(s.batches).padStart(3)} batches (${s.rows} rows)${s.skippedRows ? `, ${s.skippedRows} rows left out (FFCV's crop random)` : ''}`,
    );
    process.stderr.write(`loader-pixels compared:\n${lines.join('\n')}\n`);
  });

  // One test per loader run: names are fixed here so the list exists before beforeAll.
  for (const name of [
    'ffcv_jpg',
    'ffcv_raw',
    'ffcv_smart',
    'ffcv_fixed',
    'ours_jpg',
    'ours_raw',
    'ours_smart',
    'ours_fixed',
    'images_jpg',
    'images_raw',
    'images_smart',
    'images_proportion',
    'images_fixedsize',
  ]) {
    it(`${name}: every batch of every output equals FFCV's`, async () => {
      const run = runs.find((r) => r.name === name)!;
      const res = await compareRun(run, ffcv.runs[name]!);
      summary.push(res);
      expect(
        res.mismatches.slice(0, 20),
        `${res.mismatches.length} mismatches in ${[...new Set(res.mismatches.map((m) => m.split(':')[0]))].join(', ')}`,
      ).toEqual([]);
      expect(res.batches).toBeGreaterThan(0);
    });
  }
});
