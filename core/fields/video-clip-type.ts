import type { ClipDecoderConfig } from '../api/loader-config.js';
import type { FieldType, PipelineStepLike } from './field-type.js';
import { clipStats, createClipDecoder } from './video-clip-decoders.js';
import { VIDEO_CLIP_IDENTITY, VideoClipField, type DecodedClip, type VideoClipFieldOptions } from './video-clip-field.js';
import { clipDecoderPy, VIDEO_CLIP_PYTHON, videoFieldPy } from './video-clip-python.js';

const num = (v: unknown): number | null | undefined => v as number | null | undefined;
const isClipStep = (s: PipelineStepLike): s is ClipDecoderConfig =>
  'decoder' in s && (s.decoder === 'clip_simple' || s.decoder === 'clip_random_resized_crop');

/** A clip as a filmstrip: up to 8 evenly spaced frames as small JPEGs. */
async function filmstrip(
  clip: DecodedClip,
  size: number,
  jpeg: (px: { data: Uint8Array; width: number; height: number }, size: number, quality: number) => Promise<string>,
) {
  const frameBytes = clip.width * clip.height * 3;
  const picks = Math.min(8, clip.count);
  const base64: string[] = [];
  for (let k = 0; k < picks; k++) {
    const f = Math.floor((k * clip.count) / picks);
    base64.push(
      await jpeg({ data: clip.data.subarray(f * frameBytes, (f + 1) * frameBytes), width: clip.width, height: clip.height }, size, 80),
    );
  }
  return { kind: 'frames' as const, mime: 'image/jpeg' as const, base64, width: clip.width, height: clip.height, count: clip.count };
}

/** Custom (type 255): a clip of frames per sample; options travel in our argument blob (docs/video.md). */
export const VIDEO_CLIP_TYPE: FieldType<VideoClipField> = {
  ...VIDEO_CLIP_IDENTITY,
  usesImageCodec: true,
  fromSpec: (s) =>
    new VideoClipField({
      writeMode: s.writeMode as VideoClipFieldOptions['writeMode'],
      jpegQuality: num(s.jpegQuality) ?? undefined,
      maxResolution: num(s.maxResolution),
      frames: num(s.frames),
    }),
  decoders: { clip_simple: createClipDecoder, clip_random_resized_crop: createClipDecoder },
  defaultDecoder: { decoder: 'clip_simple' },
  stats: (t) => ({ clip: clipStats(t) }),
  // Half the thumbnail size: a strip of up to 8 frames sits where one image would.
  preview: (v, tools) => filmstrip(v as DecodedClip, Math.max(32, Math.round(tools.size / 2)), tools.jpeg),
  python: {
    field: (c) => videoFieldPy(c as Parameters<typeof videoFieldPy>[0]),
    decoders: {
      clip_simple: (s, note) => clipDecoderPy(s as ClipDecoderConfig, note),
      clip_random_resized_crop: (s, note) => clipDecoderPy(s as ClipDecoderConfig, note),
    },
    prelude: VIDEO_CLIP_PYTHON,
    customClass: VIDEO_CLIP_IDENTITY.ffcvClass,
    // Without a decoder first, our loader uses the field's default (clip_simple), as FFCV does;
    // image decoders and (H, W, C) ops do not apply to a (T, H, W, 3) clip.
    pipeline: (name, steps, notes, stepPy) => {
      const parts: string[] = steps[0] && 'decoder' in steps[0] ? [] : ['VideoClipDecoder()'];
      for (const s of steps) {
        if (isClipStep(s)) parts.push(clipDecoderPy(s, (n) => notes.push(`"${name}": ${n}`)));
        else if ('decoder' in s) {
          notes.push(`the "${name}" pipeline's ${s.decoder} decoder is for images; the clip is decoded with VideoClipDecoder instead`);
          parts.push('VideoClipDecoder()');
        } else if (s.op === 'convert') for (const p of stepPy(s)) parts.push(p);
        else notes.push(`${s.op} works on (H, W, C) images, not (T, H, W, 3) clips; left out of "${name}" (the clip decoders take flip=)`);
      }
      return parts;
    },
  },
};
