import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBuildConfig } from '../../core/api/build-config.js';
import { parseLoaderConfig } from '../../core/api/loader-config.js';
import { buildToPython, loaderToPython } from '../../core/export/python.js';
import { VIDEO_CLIP_PYTHON } from '../../core/fields/video-clip-python.js';
import { VideoClipField, type DecodedClip } from '../../core/fields/video-clip-field.js';
import { IntField } from '../../core/fields/int-field.js';
import { clipGeometry } from '../../core/loader/clip-decoders.js';
import { Loader } from '../../core/loader/loader.js';
import { ClipRandomResizedCropDecoder, ClipSimpleDecoder, EveryKthFrame, IntDecoder, RandomFrameWindow } from '../../core/pipeline/spec.js';
import { Reader } from '../../core/reader/reader.js';
import { ffmpegAvailable } from '../../core/sources/video/video-ffmpeg.js';
import { looksLikeVideoFolder } from '../../core/sources/video/video-folder.js';
import { VideoDatasetSource } from '../../core/sources/video/video-source.js';
import { buildDataset, type BuildReport } from '../../core/app/build.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';
import { checkPython } from '../helpers/python-check.js';
import { requires } from '../helpers/requires.js';
import { cliIn } from '../helpers/cli.js';

const HAVE_FFMPEG = requires('ffmpeg and ffprobe', 'apt-get install -y ffmpeg (.ci/run installs it)', ffmpegAvailable());

const ROOT = resolve(__dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'beton-video-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type RGB = readonly [number, number, number];
const RED: RGB = [255, 0, 0];
const GREEN: RGB = [0, 255, 0];
const BLUE: RGB = [0, 0, 255];
const WHITE: RGB = [255, 255, 255];
const TOL = 12;
const W = 64;
const H = 48;

const ffmpeg = (...args: string[]): void => void execFileSync('ffmpeg', ['-y', '-v', 'error', ...args]);
const color = (c: string, d: number, r = 10): string[] => ['-f', 'lavfi', '-i', `color=c=${c}:s=${W}x${H}:r=${r}:d=${d}`];
// Near-lossless: MPEG-4 part 2 at its finest quantiser; flat colours come back within a few levels.
const ENCODE = ['-c:v', 'mpeg4', '-q:v', '1', '-pix_fmt', 'yuv420p'];

/**
 * UCF101 layout:
 *   ApplyEyeMakeup/v_red.mp4   (video 0) red, 10 fps, 2 s = 20 frames
 *   ApplyEyeMakeup/v_rgb.mp4   (video 1) 10 fps: red 1 s, green 1 s, blue 1 s = 30 frames; right half white
 *   Basketball/broken.mp4      (video 2) random bytes
 *   Basketball/empty.mp4       (video 3) zero bytes
 *   Basketball/v_blue.avi      (video 4) blue, 25 fps, 1 s = 25 frames (MJPEG in AVI)
 */
let videos: string;
beforeAll(() => {
  if (!HAVE_FFMPEG) return;
  videos = join(dir, 'ucf');
  mkdirSync(join(videos, 'ApplyEyeMakeup'), { recursive: true });
  mkdirSync(join(videos, 'Basketball'), { recursive: true });
  ffmpeg(...color('red', 2), ...ENCODE, join(videos, 'ApplyEyeMakeup/v_red.mp4'));
  ffmpeg(
    ...color('red', 1),
    ...color('0x00FF00', 1),
    ...color('blue', 1),
    '-filter_complex',
    `[0][1][2]concat=n=3:v=1:a=0,drawbox=x=${W / 2}:y=0:w=${W / 2}:h=${H}:color=white:t=fill`,
    ...ENCODE,
    join(videos, 'ApplyEyeMakeup/v_rgb.mp4'),
  );
  writeFileSync(
    join(videos, 'Basketball/broken.mp4'),
    Uint8Array.from({ length: 5000 }, (_, i) => (i * 7919 + 13) % 251),
  );
  writeFileSync(join(videos, 'Basketball/empty.mp4'), new Uint8Array(0));
  ffmpeg(...color('blue', 1, 25), '-c:v', 'mjpeg', '-q:v', '2', '-pix_fmt', 'yuvj420p', join(videos, 'Basketball/v_blue.avi'));
});

/** The colour of frame f (at 10 fps) of each generated video, at (x, y). */
function expected(videoId: number, frame: number, x: number, fps = 10): RGB {
  switch (videoId) {
    case 0:
      return RED;
    case 1: {
      if (x >= W / 2) return WHITE;
      const s = frame / fps;
      return s < 1 ? RED : s < 2 ? GREEN : BLUE;
    }
    case 4:
      return BLUE;
    default:
      throw new Error(`no video ${videoId}`);
  }
}

function pixel(frames: Uint8Array, t: number, x: number, y: number, w = W, h = H): RGB {
  const o = ((t * h + y) * w + x) * 3;
  return [frames[o]!, frames[o + 1]!, frames[o + 2]!];
}

function expectNear(got: RGB, want: RGB, what: string): void {
  const ok = got.every((v, c) => Math.abs(v - want[c]!) <= TOL);
  if (!ok) expect.fail(`${what}: got (${got.join(', ')}), expected (${want.join(', ')}) ±${TOL}`);
}

/** Checks every frame of a clip against the pattern at a few points (left and right halves). */
function checkClip(frames: Uint8Array, videoId: number, startFrame: number, T: number, what: string, fps = 10, picks?: number[]): void {
  for (let t = 0; t < T; t++) {
    for (const [x, y] of [
      [4, 4],
      [W / 4, H / 2],
      [W - 5, H - 5],
    ] as const) {
      const f = startFrame + (picks ? picks[t]! : t);
      expectNear(pixel(frames, t, x, y), expected(videoId, f, x, fps), `${what} frame ${t} (video frame ${f}) at (${x}, ${y})`);
    }
  }
}

const config = (output: string, extra: Record<string, unknown> = {}): Parameters<typeof buildDataset>[0] => {
  const r = parseBuildConfig({
    source: { type: 'video_folder', path: videos, clipLength: 8, stride: 4 },
    output,
    onError: 'skip',
    chunkSize: 3,
    ...extra,
  });
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return r.value;
};

// Clip starts per video for clipLength 8, stride 4: 20 frames → 0,4,8,12; 30 → 0..20; 25 → 0..16.
const CLIPS: Array<[number, number, number]> = [
  ...[0, 4, 8, 12].map((s): [number, number, number] => [0, 0, s]),
  ...[0, 4, 8, 12, 16, 20].map((s): [number, number, number] => [1, 0, s]),
  ...[0, 4, 8, 12, 16].map((s): [number, number, number] => [4, 1, s]),
];

describe.skipIf(!HAVE_FFMPEG)('video clips: ffmpeg source → VideoClipField → Reader/Loader', () => {
  let report0: BuildReport;
  let file0: string;
  let file2: string;
  beforeAll(async () => {
    file0 = join(dir, 'w0.beton');
    file2 = join(dir, 'w2.beton');
    report0 = await buildDataset(config(file0, { numWorkers: 0 }));
    await buildDataset(config(file2, { numWorkers: 2 }));
  });

  it('lists the folder as UCF101 / ImageFolder does', () => {
    expect(looksLikeVideoFolder(videos)).toBe(true);
    const src = VideoDatasetSource.openFolder(videos, { clipLength: 8 });
    expect(src.classes).toEqual(['ApplyEyeMakeup', 'Basketball']);
    expect(src.items.map((i) => [i.path.slice(videos.length + 1), i.label])).toEqual([
      ['ApplyEyeMakeup/v_red.mp4', 0],
      ['ApplyEyeMakeup/v_rgb.mp4', 0],
      ['Basketball/broken.mp4', 1],
      ['Basketball/empty.mp4', 1],
      ['Basketball/v_blue.avi', 1],
    ]);
    expect(src.length).toBeNull();
  });

  it('writes one sample per clip: labels, video ids, starts k·stride, 8 frames of 64x48', async () => {
    expect(report0.numSamples).toBe(CLIPS.length);
    const reader = await Reader.open(file0);
    try {
      expect(reader.fields.map((f) => [f.name, f.field.typeId, f.field.type])).toEqual([
        ['clip', 255, 'video_clip'],
        ['label', 1, 'int'],
        ['video_id', 1, 'int'],
        ['start_frame', 1, 'int'],
      ]);
      // The field's options come back from our argument blob.
      expect((reader.fields[0]!.field as VideoClipField).toSpec()).toEqual({
        type: 'video_clip',
        writeMode: 'jpg',
        jpegQuality: 90,
        maxResolution: null,
        frames: 8,
      });
      CLIPS.forEach(([videoId, label, start], i) => {
        const s = reader.read(i) as { clip: DecodedClip; label: bigint; video_id: bigint; start_frame: bigint };
        expect([Number(s.video_id), Number(s.label), Number(s.start_frame)], `sample ${i}`).toEqual([videoId, label, start]);
        expect([s.clip.mode, s.clip.count, s.clip.width, s.clip.height]).toEqual(['jpg', 8, W, H]);
        expect(s.clip.fps).toEqual(videoId === 4 ? [25, 1] : [10, 1]);
        checkClip(s.clip.data, videoId, start, 8, `sample ${i}`, videoId === 4 ? 25 : 10);
      });
    } finally {
      reader.close();
    }
  });

  it('skips and reports the corrupt and the empty video under onError skip', () => {
    expect(report0.skipped.map((s) => s.source)).toEqual([join(videos, 'Basketball/broken.mp4'), join(videos, 'Basketball/empty.mp4')]);
    expect(report0.skipped[1]!.reason).toMatch(/empty file \(0 bytes\)/);
    expect(report0.skipped[0]!.reason).toMatch(/cannot read video .*broken\.mp4/);
    expect(report0.reportPath).not.toBeNull();
    const doc = JSON.parse(readFileSync(report0.reportPath!, 'utf8')) as { skipped: Array<{ path: string }> };
    expect(doc.skipped.map((s) => s.path)).toEqual(report0.skipped.map((s) => s.source));
    expect(report0.source.kind).toBe('video_folder');
    expect(report0.compressionRatio).toBeGreaterThan(0);
  });

  it('writes the same bytes with 0 and 2 workers', () => {
    expect(Buffer.compare(readFileSync(file0), readFileSync(file2))).toBe(0);
  });

  it('fails the build on the corrupt video under onError fail, leaving no file', async () => {
    const out = join(dir, 'fail.beton');
    await expect(buildDataset(config(out, { onError: 'fail', numWorkers: 0 }))).rejects.toThrow(/broken\.mp4/);
    expect(existsSync(out)).toBe(false);
  });

  it('resamples with fps, leaves gaps with stride > clipLength, and keeps the clip field raw on request', async () => {
    const out = join(dir, 'fps.beton');
    const r = parseBuildConfig({
      source: { type: 'video_folder', path: videos, clipLength: 4, stride: 5, fps: 5 },
      output: out,
      onError: 'skip',
      numWorkers: 0,
      fields: [
        { name: 'clip', type: 'video_clip', writeMode: 'raw', frames: 4 },
        { name: 'video_id', type: 'int' },
        { name: 'start_frame', type: 'int' },
        { name: 'path', type: 'json' },
      ],
    });
    if (!r.ok) throw new Error(r.errors.join('\n'));
    const rep = await buildDataset(r.value);
    const reader = await Reader.open(out);
    try {
      const got = Array.from(
        { length: reader.numSamples },
        (_, i) => reader.read(i) as { clip: DecodedClip; video_id: bigint; start_frame: bigint; path: string },
      );
      // At 5 fps: 10, 15 and 5 frames; clips of 4 starting every 5 frames.
      expect(got.map((s) => [Number(s.video_id), Number(s.start_frame)])).toEqual([
        [0, 0],
        [0, 5],
        [1, 0],
        [1, 5],
        [1, 10],
        [4, 0],
      ]);
      expect(got.map((s) => s.path)).toEqual([
        'ApplyEyeMakeup/v_red.mp4',
        'ApplyEyeMakeup/v_red.mp4',
        ...Array(3).fill('ApplyEyeMakeup/v_rgb.mp4'),
        'Basketball/v_blue.avi',
      ]);
      for (const s of got) {
        expect([s.clip.mode, s.clip.count, s.clip.fps]).toEqual(['raw', 4, [5, 1]]);
        checkClip(s.clip.data, Number(s.video_id), Number(s.start_frame), 4, `video ${s.video_id} start ${s.start_frame}`, 5);
      }
      expect(rep.skipped).toHaveLength(2);
    } finally {
      reader.close();
    }
  });

  it('reads a CSV video list with class-name labels and time ranges', async () => {
    const list = join(dir, 'list.csv');
    writeFileSync(
      list,
      ['path,label,start,end', 'ucf/ApplyEyeMakeup/v_rgb.mp4,walk,1,2', 'ucf/Basketball/v_blue.avi,jump,,', 'ucf/missing.mp4,walk,,'].join(
        '\n',
      ),
    );
    const out = join(dir, 'list.beton');
    const r = parseBuildConfig({ source: { type: 'video_list', path: list, clipLength: 5 }, output: out, onError: 'skip', numWorkers: 0 });
    if (!r.ok) throw new Error(r.errors.join('\n'));
    const rep = await buildDataset(r.value);
    expect(rep.skipped.map((s) => s.source)).toEqual([join(dir, 'ucf/missing.mp4')]);
    expect(rep.skipped[0]!.reason).toMatch(/does not exist/);
    const reader = await Reader.open(out);
    try {
      const got = Array.from(
        { length: reader.numSamples },
        (_, i) => reader.read(i) as { clip: DecodedClip; label: bigint; video_id: bigint; start_frame: bigint },
      );
      // Classes sorted: jump 0, walk 1. The rgb video from 1 s to 2 s: 10 green frames → 2 clips.
      expect(got.map((s) => [Number(s.video_id), Number(s.label), Number(s.start_frame)])).toEqual([
        [0, 1, 0],
        [0, 1, 5],
        [1, 0, 0],
        [1, 0, 5],
        [1, 0, 10],
        [1, 0, 15],
        [1, 0, 20],
      ]);
      for (const s of got.slice(0, 2)) expectNear(pixel(s.clip.data, 2, 4, 4), GREEN, 'ranged clip');
    } finally {
      reader.close();
    }
  });

  it('loads (T, H, W, 3) clips with ClipSimpleDecoder, identical to the Reader', async () => {
    const loader = await Loader.open(file2, {
      batchSize: 5,
      numWorkers: 2,
      order: 'sequential',
      pipelines: { clip: [ClipSimpleDecoder()], label: [IntDecoder()], video_id: null, start_frame: null },
    });
    const reader = await Reader.open(file2);
    try {
      let n = 0;
      for await (const batch of loader) {
        const { data, shape } = batch.get('clip');
        expect(shape).toEqual([5, 8, H, W, 3]);
        const per = 8 * H * W * 3;
        for (let k = 0; k < 5; k++) {
          const id = batch.sampleIds[k]!;
          const want = (reader.read(id).clip as DecodedClip).data;
          expect(
            Buffer.compare(Buffer.from((data as Uint8Array).subarray(k * per, (k + 1) * per)), Buffer.from(want)),
            `sample ${id}`,
          ).toBe(0);
        }
        n += 5;
      }
      expect(n).toBe(CLIPS.length);
    } finally {
      await loader.close();
      reader.close();
    }
  });

  it('crops every frame of a clip alike, flips the whole clip, and sub-samples in time', async () => {
    const common = { batchSize: CLIPS.length, numWorkers: 2, order: 'sequential' as const, seed: 7 };
    const run = async (flip: number, temporal = EveryKthFrame(2)): Promise<Uint8Array> => {
      const loader = await Loader.open(file0, {
        ...common,
        pipelines: {
          clip: [ClipRandomResizedCropDecoder(32, { scale: [0.3, 1], temporal, flip })],
          label: null,
          video_id: null,
          start_frame: null,
        },
      });
      try {
        for await (const batch of loader) {
          expect(batch.get('clip').shape).toEqual([CLIPS.length, temporal.mode === 'every' ? 4 : temporal.length, 32, 32, 3]);
          return (batch.get('clip').data as Uint8Array).slice();
        }
        throw new Error('no batch');
      } finally {
        await loader.close();
      }
    };
    const plain = await run(0);
    const flipped = await run(1);
    const T = 4;
    const per = T * 32 * 32 * 3;
    const white = (clip: Uint8Array, t: number): string => {
      let s = '';
      for (let p = 0; p < 32 * 32; p++) s += clip[(t * 32 * 32 + p) * 3 + 1]! > 200 && clip[(t * 32 * 32 + p) * 3 + 2]! > 200 ? '1' : '0';
      return s;
    };
    CLIPS.forEach(([videoId, , start], i) => {
      const a = plain.subarray(i * per, (i + 1) * per);
      const b = flipped.subarray(i * per, (i + 1) * per);
      // The same crop for every frame: the white half's footprint does not move (a different
      // crop would shift its edge by columns; allow a few edge pixels of JPEG noise).
      const m0 = white(a, 0);
      for (let t = 1; t < T; t++) {
        const mt = white(a, t);
        let diff = 0;
        for (let p = 0; p < mt.length; p++) if (mt[p] !== m0[p]) diff++;
        expect(diff, `sample ${i} frame ${t}: white footprint moved`).toBeLessThanOrEqual(8);
      }
      // Frames 0, 2, 4, 6 of the clip (every 2nd): the colour away from the white half follows the pattern.
      if (videoId === 1) {
        for (let t = 0; t < T; t++) {
          const interior = [...m0].findIndex((_, p) => {
            const y = Math.floor(p / 32);
            const x = p % 32;
            for (let dy = -2; dy <= 2; dy++)
              for (let dx = -2; dx <= 2; dx++)
                if (m0[Math.min(31, Math.max(0, y + dy)) * 32 + Math.min(31, Math.max(0, x + dx))] !== '0') return false;
            return true;
          });
          if (interior < 0) continue;
          const got: RGB = [a[(t * 1024 + interior) * 3]!, a[(t * 1024 + interior) * 3 + 1]!, a[(t * 1024 + interior) * 3 + 2]!];
          expectNear(got, expected(1, start + 2 * t, 0), `sample ${i} frame ${t}`);
        }
      }
      // flip 1 with the same seed: the same crop, mirrored.
      for (let t = 0; t < T; t++) {
        for (let y = 0; y < 32; y++) {
          for (let x = 0; x < 32; x++) {
            const o = ((t * 32 + y) * 32 + x) * 3;
            const m = ((t * 32 + y) * 32 + (31 - x)) * 3;
            if (a[o] !== b[m] || a[o + 1] !== b[m + 1] || a[o + 2] !== b[m + 2])
              expect.fail(`sample ${i}: flipped clip is not the mirror at t=${t} (${x}, ${y})`);
          }
        }
      }
    });
    // A random window of 3 consecutive frames: colours consistent with one start inside the clip.
    const windowed = await run(0, RandomFrameWindow(3));
    expect(windowed.byteLength).toBe(CLIPS.length * 3 * 32 * 32 * 3);
  });

  it('reads the clip geometry of a file from its metadata', async () => {
    const reader = await Reader.open(file0);
    try {
      expect(clipGeometry(reader, 'clip')).toEqual({ minFrames: 8, maxFrames: 8, minWidth: W, maxWidth: W, minHeight: H, maxHeight: H });
    } finally {
      reader.close();
    }
  });

  it('a JPEG frame cut short inside its scan is a corrupt sample, not grey pixels (clip decoders decode strictly)', async () => {
    const out = join(dir, 'cut-frame.beton');
    const W = 48;
    const H = 32;
    const frames = new Uint8Array(3 * W * H * 3);
    for (let i = 0; i < frames.length; i++) frames[i] = (i * 7 + (i >> 5) * 13) & 255;
    await new DatasetWriter(out, { clip: new VideoClipField({ writeMode: 'jpg', jpegQuality: 95 }) }, { numWorkers: 0 }).write([
      { clip: { frames, width: W, height: H, count: 3 } },
      { clip: { frames, width: W, height: H, count: 3 } },
    ]);
    const reader = await Reader.open(out);
    const ref = reader.heapRef(1, 0)!;
    reader.close();
    // Frame 1 of sample 1: an EOI marker halfway through its entropy-coded data.
    const bytes = readFileSync(out);
    const heap = bytes.subarray(ref.ptr, ref.ptr + ref.size);
    const sos: number[] = [];
    for (let i = 0; i + 1 < heap.length; i++) if (heap[i] === 0xff && heap[i + 1] === 0xda) sos.push(i);
    expect(sos.length).toBe(3);
    const end = heap.indexOf(0xd9, sos[1]!);
    const mid = sos[1]! + Math.floor((end - sos[1]!) / 2);
    heap[mid] = 0xff;
    heap[mid + 1] = 0xd9;
    writeFileSync(out, bytes);
    for (const decoder of [ClipSimpleDecoder(), ClipRandomResizedCropDecoder(16)]) {
      const loader = await Loader.open(out, { batchSize: 1, numWorkers: 1, order: 'sequential', pipelines: { clip: [decoder] } });
      const seen: number[] = [];
      const err = await (async () => {
        try {
          for await (const b of loader) seen.push(b.sampleIds[0]!);
        } catch (e) {
          return e as Error & { code?: string };
        } finally {
          await loader.close();
        }
        return null;
      })();
      expect(seen).toEqual([0]);
      expect(err?.code, decoder.decoder).toBe('CORRUPT_SAMPLE');
      expect(err?.message).toContain('sample 1');
    }
  });

  it('stores clips of varying length; the decoder repeats the last frame of a short clip', async () => {
    const out = join(dir, 'var.beton');
    const clip = (n: number, base: number): { frames: Uint8Array; width: number; height: number; count: number; fps: [number, number] } => {
      const frames = new Uint8Array(n * 4 * 2 * 3);
      for (let t = 0; t < n; t++) frames.fill(base + t, t * 24, (t + 1) * 24);
      return { frames, width: 4, height: 2, count: n, fps: [30000, 1001] };
    };
    await new DatasetWriter(out, { clip: new VideoClipField({ writeMode: 'raw' }), label: new IntField() }, { numWorkers: 0 }).write([
      { clip: clip(3, 10), label: 0 },
      { clip: clip(5, 100), label: 1 },
    ]);
    const reader = await Reader.open(out);
    try {
      const c = reader.read(0).clip as DecodedClip;
      expect([c.count, c.fps]).toEqual([3, [30000, 1001]]);
      expect(c.stored.map((f) => f[0])).toEqual([10, 11, 12]);
    } finally {
      reader.close();
    }
    const loader = await Loader.open(out, {
      batchSize: 2,
      numWorkers: 1,
      order: 'sequential',
      pipelines: { clip: [ClipSimpleDecoder()], label: null },
    });
    try {
      for await (const b of loader) {
        const d = b.get('clip').data as Uint8Array;
        expect(b.get('clip').shape).toEqual([2, 5, 2, 4, 3]);
        expect(Array.from({ length: 10 }, (_, k) => d[k * 24])).toEqual([10, 11, 12, 12, 12, 100, 101, 102, 103, 104]);
      }
    } finally {
      await loader.close();
    }
    await expect(
      new DatasetWriter(join(dir, 'bad.beton'), { clip: new VideoClipField({ frames: 4, writeMode: 'raw' }) }, { numWorkers: 0 }).write([
        { clip: clip(3, 0) },
      ]),
    ).rejects.toThrow(/declares 4 frames per clip, this clip has 3/);
  });

  it('fails a clip larger than a page with a message suggesting a larger page size', async () => {
    const out = join(dir, 'small-pages.beton');
    const r = parseBuildConfig({
      source: { type: 'video_folder', path: videos, clipLength: 8 },
      output: out,
      onError: 'skip',
      numWorkers: 0,
      pageSize: 65536,
      fields: [{ name: 'clip', type: 'video_clip', writeMode: 'raw' }],
    });
    if (!r.ok) throw new Error(r.errors.join('\n'));
    // 8 raw frames of 64x48 = 73,728 bytes > 64 KiB. (buildDataset uses FFCV's 2 MiB minimum; go through DatasetWriter.)
    const src = VideoDatasetSource.openFolder(videos, { clipLength: 8 });
    const w = new DatasetWriter(
      out,
      { clip: new VideoClipField({ writeMode: 'raw' }) },
      { numWorkers: 0, pageSize: 65536, allowSmallPages: true, onError: 'skip' },
    );
    await expect(w.write(src.samples(r.value.fields!))).rejects.toThrow(/larger page size/);
  });

  it('exports Python FFCV code with the custom field that parses', () => {
    const cfg = config(join(dir, 'x.beton'));
    const fields = [
      { name: 'clip', type: 'video_clip' as const, writeMode: 'jpg' as const, jpegQuality: 90, maxResolution: 128, frames: 8 },
      { name: 'label', type: 'int' as const },
    ];
    const build = buildToPython(cfg, fields);
    expect(build).toContain('class VideoClipField(Field)');
    expect(build).toContain('"clip": VideoClipField(write_mode="jpg", jpeg_quality=90, max_resolution=128, frames=8)');
    const lc = parseLoaderConfig({ file: join(dir, 'w0.beton'), batchSize: 4, pipelines: { clip: [], label: [{ decoder: 'int' }] } });
    if (!lc.ok) throw new Error(lc.errors.join('\n'));
    const load = loaderToPython(lc.value, {
      fields: [
        { name: 'clip', type: 'video_clip' },
        { name: 'label', type: 'int' },
      ],
    });
    expect(load).toContain('custom_fields={"clip": VideoClipField}');
    expect(load).toContain('"clip": [VideoClipDecoder(), ToTensor()]');
    // Compiles, and imports only FFCV's public names (custom fields use ffcv.fields.base / pipeline.*).
    for (const code of [build, load]) expect(checkPython(code)).toBe('ok');
  });

  // Without FFCV: the generated field and decoder as plain Python (numba's compile and FFCV's
  // libffcv stubbed). The real FFCV runs them compiled in test/interop/export-runs.test.ts.
  it('the exported Python field and decoder read our file byte for byte (numpy; FFCV, numba and cv2 stubbed)', async () => {
    const hasNumpy = spawnSync('python3', ['-c', 'import numpy'], { encoding: 'utf8' });
    if (hasNumpy.error || hasNumpy.status !== 0) return void console.warn('numpy not available: Python decoder check skipped');
    // The raw-mode file of the fps test (JPEG frames would need the real cv2).
    const file = join(dir, 'fps.beton');
    const code = join(dir, 'video_clip_field.py');
    writeFileSync(code, VIDEO_CLIP_PYTHON);
    const script = join(dir, 'check.py');
    writeFileSync(script, PY_CHECK);
    const outFile = join(dir, 'py-clips.bin');
    const r = spawnSync('python3', [script, code, file, outFile], { encoding: 'utf8' });
    expect(r.status, r.stderr + r.stdout).toBe(0);
    const report = JSON.parse(r.stdout) as { args_roundtrip: boolean; shape: number[]; fields: string[] };
    expect(report.args_roundtrip).toBe(true);
    expect(report.shape).toEqual([4, H, W, 3]);
    const reader = await Reader.open(file);
    try {
      const want = Buffer.concat(
        Array.from({ length: reader.numSamples }, (_, i) => Buffer.from((reader.read(i).clip as DecodedClip).data)),
      );
      expect(Buffer.compare(readFileSync(outFile), want)).toBe(0);
    } finally {
      reader.close();
    }
  });
});

/** Opens a .beton with numpy as FFCV does, with the generated field as the custom handler, and decodes every clip. */
const PY_CHECK = String.raw`
import json, sys, types
from dataclasses import dataclass
import numpy as np

def module(name, **attrs):
    m = types.ModuleType(name)
    m.__dict__.update(attrs)
    sys.modules[name] = m

class Field: pass
class Operation:
    def __init__(self):
        self.metadata = None
        self.memory_read = None
class AllocationQuery:
    def __init__(self, shape, dtype):
        self.shape, self.dtype = shape, dtype
@dataclass
class State:
    jit_mode: bool = True
    shape: tuple = ()
    dtype: object = None

class Compiler:
    # FFCV's Compiler JIT-compiles with numba; the plain functions compute the same.
    compile = staticmethod(lambda code, signature=None: code)
    get_iterator = staticmethod(lambda: range)
def memcpy(source, dest):
    dest.reshape(-1).view(np.uint8)[:source.size] = source
def not_stubbed(*args):
    raise NotImplementedError("JPEG frames and crops need FFCV's libffcv (test/interop/export-runs.test.ts)")

ARG_TYPE = np.dtype([("", "<u1", 1024)])  # FFCV 1.0.2's
for name in ["ffcv", "ffcv.fields", "ffcv.pipeline"]:
    module(name)
module("ffcv.fields.base", Field=Field, ARG_TYPE=ARG_TYPE)
module("ffcv.pipeline.allocation_query", AllocationQuery=AllocationQuery)
module("ffcv.pipeline.operation", Operation=Operation)
module("ffcv.pipeline.compiler", Compiler=Compiler)
module("ffcv.libffcv", memcpy=memcpy, imdecode=not_stubbed, resize_crop=not_stubbed)
module("cv2")
g = {}
exec(open(sys.argv[1]).read(), g)

data = np.fromfile(sys.argv[2], dtype=np.uint8)
header = data[:24].view(np.dtype([("version", "<u2"), ("num_fields", "<u2"), ("page_size", "<u4"), ("num_samples", "<u8"), ("alloc_table_ptr", "<u8")], align=True))[0]
F, N = int(header["num_fields"]), int(header["num_samples"])
desc_type = np.dtype([("type_id", "<u1"), ("name", ("<u1", 16)), ("arguments", ("<u1", 1024))], align=True)
descs = data[24:24 + F * desc_type.itemsize].view(desc_type)
handlers, names, roundtrip = [], [], True
for d in descs:
    names.append(bytes(d["name"]).rstrip(b"\0").decode())
    if d["type_id"] == 255:
        h = g["VideoClipField"].from_binary(d["arguments"])
        roundtrip = roundtrip and np.asarray(h.to_binary()).tobytes() == d["arguments"].tobytes()
        handlers.append(h.metadata_type)
    elif d["type_id"] == 1:
        handlers.append(np.dtype("<i8"))
    elif d["type_id"] == 5:
        handlers.append(np.dtype([("ptr", "<u8"), ("size", "<u8")]))
    else:
        raise SystemExit("unexpected type id %d" % d["type_id"])
record = np.dtype([("", t) for t in handlers], align=True)
start = 24 + F * desc_type.itemsize
metadata = data[start:start + N * record.itemsize].view(record)["f0"]

dec = g["VideoClipDecoder"]()
dec.metadata = metadata
sizes = {int(m["data_ptr"]): int(m["data_size"]) for m in metadata}
dec.memory_read = lambda ptr, state: data[int(ptr):int(ptr) + sizes[int(ptr)]]
state, query = dec.declare_state_and_memory(State())
# FFCV compiles every decoder with numba whatever the state says; the state says so too.
assert state.jit_mode is True and query.shape == state.shape
decode = dec.generate_code()
out = np.zeros((N,) + state.shape, dtype=np.uint8)
decode(np.arange(N), out, metadata, None)
out.tofile(sys.argv[3])
print(json.dumps({"args_roundtrip": bool(roundtrip), "shape": list(state.shape), "fields": names}))
`;

describe.skipIf(!HAVE_FFMPEG || !requires('a built dist/', 'npm run build:ts', existsSync(join(ROOT, 'dist/core/cli/main.js'))))(
  'beton build with videos (CLI)',
  () => {
    const cli = cliIn(dir);

    it('asks for --clip-length on a folder of videos', () => {
      const r = cli('build', videos, '-o', join(dir, 'cli0.beton'));
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/holds videos .*--clip-length/);
    });

    it('builds clips with --clip-length/--stride/--fps and clip options, skipping bad videos', () => {
      const out = join(dir, 'cli.beton');
      const r = cli(
        'build',
        videos,
        '-o',
        out,
        '--clip-length',
        '4',
        '--stride',
        '5',
        '--fps',
        '5',
        '--max-resolution',
        '32',
        '--jpeg-quality',
        '95',
        '--on-error',
        'skip',
        '--workers',
        '1',
        '--json',
      );
      expect(r.status, r.stderr).toBe(0);
      const rep = JSON.parse(r.stdout) as { numSamples: number; skipped: unknown[] };
      expect([rep.numSamples, rep.skipped.length]).toEqual([6, 2]);
      const i = cli('inspect', out, '--json');
      expect(i.status, i.stderr).toBe(0);
      expect(i.stdout).toContain('video_clip');
    });
  },
);
