import { statSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { VideoClipFieldConfig, type FieldConfig } from '../../api/build-config.js';
import { BetonEncodeError } from '../../format/errors.js';
import { VIDEO_CLIP_IDENTITY, fpsRational, type ClipFrames } from '../../fields/video-clip-field.js';
import { skipMarker, type Sample, type SkipMarker } from '../../writer/sample.js';
import { findFfmpeg, probeVideo, rawFrames, VideoReadError, type FfmpegTools } from './video-ffmpeg.js';
import { listVideoFolder, readVideoList, type VideoItem, type VideoListing } from './video-folder.js';
import type { ReadGuard } from '../common/read-guard.js';
import type { DatasetSource } from '../common/source.js';
import { setOwn } from '../../format/own-keys.js';

export interface VideoSourceOptions {
  /** Frames per clip (T). */
  clipLength: number;
  /** Frames between the starts of consecutive clips (default clipLength: back to back, no overlap). */
  stride?: number;
  /** Resample every video to this rate first (ffmpeg -vf fps=F); null/undefined = each video's own rate. */
  fps?: number | null;
  /** The ffmpeg executable (default ffmpeg on PATH, or $BETON_FFMPEG); ffprobe is looked up beside it. */
  ffmpeg?: string;
  /** beton serve: listed videos (and folders walked) must stay inside the served folders (read-guard.ts). */
  readGuard?: ReadGuard;
}

/** One clip of a video, before it becomes a sample. */
export interface VideoClip {
  videoId: number;
  /** Index of the clip's first frame in the (resampled, time-ranged) video. */
  startFrame: number;
  label: number;
  path: string;
  clip: Required<Pick<ClipFrames, 'frames' | 'width' | 'height' | 'count'>> & { fps: [number, number] };
}

/** The values a video source offers; a field takes the one named like it (or its `columns[0]`). */
export const VIDEO_COLUMNS = ['clip', 'label', 'video_id', 'start_frame', 'path', 'class', 'start_time'] as const;
type VideoColumn = (typeof VIDEO_COLUMNS)[number];

const FIX = 're-encode or remove it, or build with --on-error skip';

/**
 * Videos as a dataset of clips: each video (a folder in UCF101's layout, or a list file)
 * is decoded with ffmpeg into RGB frames, streamed, and cut into clips of `clipLength`
 * frames whose starts are `stride` frames apart (a sliding window: only the frames of
 * clips not yet complete are held). Every clip is a sample: `clip` (video_clip), `label`,
 * `video_id` (the video's position in the listing) and `start_frame` (k·stride).
 * A video that cannot be read (corrupt, empty, no video stream) is yielded as a skip
 * marker, so the writer's onError policy reports or skips it. Videos shorter than one
 * clip give no samples. The number of clips is unknown until decoded: `length` is null.
 */
export class VideoDatasetSource implements DatasetSource {
  readonly length = null;
  readonly baseDir: string;
  readonly clipLength: number;
  readonly stride: number;
  readonly fps: number | null;
  private toolsCache: FfmpegTools | null = null;

  constructor(
    readonly kind: 'video_folder' | 'video_list',
    readonly path: string,
    readonly listing: VideoListing,
    private readonly opts: VideoSourceOptions,
  ) {
    this.baseDir = kind === 'video_folder' ? path : dirname(path);
    this.clipLength = opts.clipLength;
    this.stride = opts.stride ?? opts.clipLength;
    this.fps = opts.fps ?? null;
    const posInt = (v: number, name: string): void => {
      if (!Number.isInteger(v) || v < 1 || v > 65535)
        throw new BetonEncodeError('BAD_OPTIONS', `${name} must be an integer 1..65535, got ${v}`, { source: path });
    };
    posInt(this.clipLength, 'clipLength');
    posInt(this.stride, 'stride');
    if (this.fps !== null && !(this.fps > 0 && Number.isFinite(this.fps)))
      throw new BetonEncodeError('BAD_OPTIONS', `fps must be a positive number, got ${this.fps}`, { source: path });
  }

  /** `root/<class>/<video>`: labels from the sorted class folders. */
  static openFolder(root: string, opts: VideoSourceOptions): VideoDatasetSource {
    return new VideoDatasetSource('video_folder', root, listVideoFolder(root, opts.readGuard), opts);
  }

  /** A CSV/JSONL list: path,label[,start,end]. */
  static openList(path: string, opts: VideoSourceOptions & { format?: 'csv' | 'jsonl' }): VideoDatasetSource {
    return new VideoDatasetSource('video_list', path, readVideoList(path, opts.format), opts);
  }

  get items(): readonly VideoItem[] {
    return this.listing.items;
  }

  get classes(): readonly string[] | null {
    return this.listing.classes;
  }

  classNames(): readonly string[] | null {
    return this.classes;
  }

  /** ffmpeg and ffprobe, checked on first use (a missing ffmpeg fails the build with an install hint). */
  tools(): FfmpegTools {
    this.toolsCache ??= findFfmpeg(this.opts.ffmpeg);
    return this.toolsCache;
  }

  async detectSchema(): Promise<FieldConfig[]> {
    return [
      VideoClipFieldConfig.parse({ name: 'clip', type: VIDEO_CLIP_IDENTITY.type, frames: this.clipLength }),
      { name: 'label', type: 'int' },
      { name: 'video_id', type: 'int' },
      { name: 'start_frame', type: 'int' },
    ];
  }

  /** Total bytes of the video files (for the build report's compression ratio). */
  sourceBytes(): number {
    let n = 0;
    for (const it of this.listing.items) {
      try {
        n += statSync(this.readable(it.path)).size;
      } catch {
        // unreadable: reported when the video is read
      }
    }
    return n;
  }

  samples(fields: readonly FieldConfig[], range?: { start: number; end: number }): AsyncIterable<Sample> {
    const cols = fields.map((f) => {
      const c = f.columns?.[0] ?? f.name;
      if (!(VIDEO_COLUMNS as readonly string[]).includes(c)) {
        throw new BetonEncodeError(
          'BAD_SCHEMA',
          `field "${f.name}": a video source has no value "${c}"; it offers ${VIDEO_COLUMNS.join(', ')}`,
          { source: this.path, field: f.name },
        );
      }
      return { name: f.name, col: c as VideoColumn };
    });
    return { [Symbol.asyncIterator]: () => this.sampleStream(cols, range?.start ?? 0, range?.end ?? Number.POSITIVE_INFINITY) };
  }

  private async *sampleStream(cols: ReadonlyArray<{ name: string; col: VideoColumn }>, start: number, end: number): AsyncGenerator<Sample> {
    let i = 0;
    for await (const c of this.clips()) {
      if (i >= end) return;
      if (i++ < start) continue;
      if ('__betonSkip' in c) {
        yield c;
        continue;
      }
      const out: Record<string, unknown> = {};
      for (const { name, col } of cols) setOwn(out, name, this.value(c, col));
      yield out;
    }
  }

  private value(c: VideoClip, col: VideoColumn): unknown {
    switch (col) {
      case 'clip':
        return c.clip;
      case 'label':
        return c.label;
      case 'video_id':
        return c.videoId;
      case 'start_frame':
        return c.startFrame;
      case 'path':
        return relative(this.baseDir, c.path);
      case 'class':
        return this.listing.classes?.[c.label] ?? String(c.label);
      case 'start_time': {
        const [n, d] = c.clip.fps;
        return (this.listing.items[c.videoId]?.start ?? 0) + (n > 0 ? (c.startFrame * d) / n : 0);
      }
    }
  }

  /** Every clip of every video, in order; a video that cannot be read yields one skip marker. */
  async *clips(): AsyncGenerator<VideoClip | SkipMarker> {
    const items = this.listing.items;
    for (let v = 0; v < items.length; v++) {
      const it = items[v]!;
      if (it.error) {
        yield skipMarker(it.error, it.path);
        continue;
      }
      // Checked before ffprobe/ffmpeg see the file; they then open the resolved path.
      let path: string;
      try {
        path = this.readable(it.path);
      } catch (e) {
        yield skipMarker((e as Error).message, it.path);
        continue;
      }
      let emitted = 0;
      try {
        for await (const clip of this.videoClips(v, { ...it, path }, it.path)) {
          emitted++;
          yield clip;
        }
      } catch (e) {
        if (!(e instanceof VideoReadError)) throw e;
        const after = emitted > 0 ? ` after ${emitted} clip${emitted === 1 ? '' : 's'} (those are kept)` : '';
        yield skipMarker(`cannot read video ${it.path}${after}: ${e.message}; ${FIX}`, it.path);
      }
    }
  }

  /** The path to open for a listed video: the guard's (which may refuse it), or as listed. */
  private readable(path: string): string {
    return this.opts.readGuard ? this.opts.readGuard(path) : path;
  }

  /** The clips of one video (read from `it.path`, reported as `listed`): a sliding window over ffmpeg's frame stream. */
  private async *videoClips(videoId: number, it: VideoItem, listed: string): AsyncGenerator<VideoClip> {
    let size: number;
    try {
      size = statSync(it.path).size;
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      throw new VideoReadError(err.code === 'ENOENT' ? 'the file does not exist' : err.message);
    }
    if (size === 0) throw new VideoReadError('it is an empty file (0 bytes)');
    const tools = this.tools();
    const info = await probeVideo(tools, it.path);
    const fps = this.fps !== null ? fpsRational(this.fps) : info.fps;
    const { width, height } = info;
    const T = this.clipLength;
    const S = this.stride;
    const frameBytes = width * height * 3;
    // window[j] is frame nextStart + j; frames before the next clip's start are not kept.
    const window: Uint8Array[] = [];
    let nextStart = 0;
    let f = 0;
    for await (const frame of rawFrames(tools, it.path, { width, height, fps: this.fps, start: it.start ?? null, end: it.end ?? null })) {
      const index = f++;
      if (index < nextStart) continue;
      window.push(frame);
      if (window.length < T) continue;
      const frames = new Uint8Array(T * frameBytes);
      for (let k = 0; k < T; k++) frames.set(window[k]!, k * frameBytes);
      yield { videoId, startFrame: nextStart, label: it.label, path: listed, clip: { frames, width, height, count: T, fps } };
      nextStart += S;
      window.splice(0, Math.min(S, window.length));
    }
  }
}
