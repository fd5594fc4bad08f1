import type { FieldConfig } from '../api/build-config.js';
import type { FIELD_TYPE } from '../api/constants.js';
import type { ClipDecoderConfig } from '../api/loader-config.js';

/**
 * Python for reading (and writing) our video .beton files with FFCV: a custom Field with
 * the same packed metadata struct and argument blob as core/fields/video-clip-field.ts,
 * and two decoders that return (T, H, W, 3) uint8 clips: whole frames (VideoClipDecoder,
 * as ClipSimpleDecoder) and one resized crop per clip (VideoClipRandomResizedCropDecoder,
 * as ClipRandomResizedCropDecoder), with the same temporal sub-sampling and flip options.
 * FFCV compiles every decoder with numba, so they decode through FFCV's own compiled
 * libffcv calls (imdecode, memcpy, resize_crop), as its image decoders do: the same
 * full-frame fast-IDCT decode and INTER_AREA crop resize as our loader, byte for byte.
 * FFCV opens a file with a type-255 field only when it is named in `custom_fields`
 * (Reader's custom handlers), so the exported Loader passes
 * `custom_fields={'clip': VideoClipField}` for every video field, even a disabled one.
 */
export const VIDEO_CLIP_PYTHON = String.raw`# --- Beton Studio video clips for FFCV (generated; layout in docs/video.md) ---
import json
from dataclasses import replace

import cv2
import numpy as np
from ffcv.fields.base import Field, ARG_TYPE
from ffcv.libffcv import imdecode, memcpy, resize_crop
from ffcv.pipeline.allocation_query import AllocationQuery
from ffcv.pipeline.compiler import Compiler
from ffcv.pipeline.operation import Operation

CLIP_MAGIC = b"BTSF"
CLIP_MODE_JPG, CLIP_MODE_RAW = 0, 1
# Packed (align=False), 27 bytes: alignment 1 in the record, as FFCV's RGBImageField struct.
CLIP_METADATA = np.dtype([
    ("mode", "<u1"),
    ("num_frames", "<u2"),
    ("width", "<u2"),
    ("height", "<u2"),
    ("fps_num", "<u4"),
    ("fps_den", "<u4"),
    ("data_ptr", "<u8"),
    ("data_size", "<u4"),
], align=False)
assert CLIP_METADATA.itemsize == 27


# FFCV JIT-compiles every decoder with numba (nopython mode), so the decoders below call
# only numba-compiled helpers: these functions, compiled in generate_code with FFCV's
# Compiler, and FFCV's own libffcv imdecode/memcpy/resize_crop (libjpeg-turbo with the
# fast IDCT, OpenCV's INTER_AREA), exactly as FFCV's RGB image decoders do. Like those,
# they ignore imdecode's status: an exception in FFCV's loader thread would leave the
# training loop waiting forever for the batch (and a raise inside the sample loop stops
# numba from running it in parallel). Beton Studio's loader reports a corrupt frame.

def clip_frame_bounds(buf, k):
    """Byte range [start, end) of stored frame k: entries k and k + 1 of the <u4 offset table at the start of the clip's object."""
    start = np.int64(0)
    end = np.int64(0)
    for b in range(4):
        start |= np.int64(buf[4 * k + b]) << (8 * b)
        end |= np.int64(buf[4 * k + 4 + b]) << (8 * b)
    return start, end


def clip_window_start(count, window):
    """First stored frame of a random window of "window" consecutive frames (0 without a window or when the clip is not longer)."""
    if window > 0 and count > window:
        return np.random.randint(0, count - window + 1)
    return 0


def clip_stored_frame(t, count, start, every):
    """The stored frame output frame t shows: start + t * every, a short clip repeating its last frame."""
    k = start + t * every
    return k if k < count else count - 1


def clip_flip(clip):
    """Mirrors every frame of a (T, H, W, 3) clip left-right, in place."""
    width = clip.shape[2]
    for t in range(clip.shape[0]):
        for y in range(clip.shape[1]):
            for a in range(width // 2):
                b = width - 1 - a
                for c in range(3):
                    v = clip[t, y, a, c]
                    clip[t, y, a, c] = clip[t, y, b, c]
                    clip[t, y, b, c] = v


def clip_random_crop(height, width, scale, ratio):
    """RandomResizedCrop's parameters (torchvision's rule, as FFCV's RandomResizedCropRGBImageDecoder): top, left, h, w."""
    area = height * width
    log_ratio = np.log(ratio)
    for _ in range(10):
        target_area = area * np.random.uniform(scale[0], scale[1])
        aspect_ratio = np.exp(np.random.uniform(log_ratio[0], log_ratio[1]))
        w = int(round(np.sqrt(target_area * aspect_ratio)))
        h = int(round(np.sqrt(target_area / aspect_ratio)))
        if 0 < w <= width and 0 < h <= height:
            return int(np.random.uniform(0, height - h + 1)), int(np.random.uniform(0, width - w + 1)), h, w
    in_ratio = float(width) / float(height)
    w, h = int(width), int(height)
    if in_ratio < min(ratio):
        h = int(round(w / min(ratio)))
    elif in_ratio > max(ratio):
        w = int(round(h * max(ratio)))
    return (height - h) // 2, (width - w) // 2, h, w


class VideoClipDecoder(Operation):
    """(T, H, W, 3) uint8 clips at the stored frame size (one size in the file, like SimpleRGBImageDecoder).

    frames: stored clip length to plan for (default: the longest clip; a shorter clip repeats its last frame).
    every: every k-th stored frame (T = ceil(frames / every)); window: instead, a random run of "window"
    consecutive frames (T = window). flip: probability of mirroring the whole clip.
    """

    def __init__(self, frames=None, every=1, window=None, flip=0.0):
        super().__init__()
        if int(every) < 1 or (window is not None and (int(window) < 1 or int(every) != 1)):
            raise ValueError("every is an integer >= 1; window (>= 1) replaces every, so not both")
        if not 0.0 <= float(flip) <= 1.0:
            raise ValueError("flip is a probability in [0, 1]")
        self.frames = frames
        self.every = int(every)
        self.window = window
        self.flip = float(flip)

    def output_frames(self):
        stored = int(self.frames or self.metadata["num_frames"].max())
        return int(self.window) if self.window else -(-stored // self.every)

    def declare_state_and_memory(self, previous_state):
        widths, heights = self.metadata["width"], self.metadata["height"]
        if widths.min() != widths.max() or heights.min() != heights.max():
            raise TypeError("VideoClipDecoder needs frames of one size; use VideoClipRandomResizedCropDecoder")
        shape = (self.output_frames(), int(heights.max()), int(widths.max()), 3)
        dtype = np.dtype("<u1")
        return replace(previous_state, jit_mode=True, shape=shape, dtype=dtype), AllocationQuery(shape, dtype)

    def generate_code(self):
        mem_read = self.memory_read
        my_range = Compiler.get_iterator()
        imdecode_c = Compiler.compile(imdecode)
        memcpy_c = Compiler.compile(memcpy)
        bounds_c = Compiler.compile(clip_frame_bounds)
        window_c = Compiler.compile(clip_window_start)
        stored_c = Compiler.compile(clip_stored_frame)
        flip_c = Compiler.compile(clip_flip)
        jpg = CLIP_MODE_JPG
        every = self.every
        window = int(self.window or 0)
        flip = self.flip

        def decode(batch_indices, destination, metadata, storage_state):
            for dst_ix in my_range(len(batch_indices)):
                field = metadata[batch_indices[dst_ix]]
                buf = mem_read(field["data_ptr"], storage_state)
                count = np.int64(field["num_frames"])
                height = np.uint32(field["height"])
                width = np.uint32(field["width"])
                clip = destination[dst_ix]
                start = window_c(count, window)
                previous = -1
                for t in range(clip.shape[0]):
                    k = stored_c(t, count, start, every)
                    if k == previous:
                        clip[t] = clip[t - 1]
                        continue
                    previous = k
                    a, b = bounds_c(buf, k)
                    if field["mode"] == jpg:
                        imdecode_c(buf[a:b], clip[t], height, width, height, width, 0, 0, 1, 1, False, False)
                    else:
                        memcpy_c(buf[a:b], clip[t])
                if flip > 0 and np.random.rand() < flip:
                    flip_c(clip)
            return destination[:len(batch_indices)]

        decode.is_parallel = True
        return decode


class VideoClipRandomResizedCropDecoder(VideoClipDecoder):
    """(T, size[0], size[1], 3) uint8 clips: one RandomResizedCrop per clip (the same for every frame), resized
    with INTER_AREA as FFCV's RandomResizedCropRGBImageDecoder. Frame sizes may vary. A subclass of
    VideoClipDecoder because FFCV takes a pipeline's first step as its decoder only when it is an instance of
    the field's decoder class."""

    def __init__(self, output_size, scale=(0.08, 1.0), ratio=(3 / 4, 4 / 3), frames=None, every=1, window=None, flip=0.0):
        super().__init__(frames, every, window, flip)
        self.output_size = (int(output_size[0]), int(output_size[1]))
        self.scale = (float(scale[0]), float(scale[1]))
        self.ratio = (float(ratio[0]), float(ratio[1]))

    def declare_state_and_memory(self, previous_state):
        shape = (self.output_frames(), self.output_size[0], self.output_size[1], 3)
        dtype = np.dtype("<u1")
        # One decoded frame per sample, at the largest frame size (JPEG frames decode whole, then crop).
        largest = (int(self.metadata["height"].max()) * int(self.metadata["width"].max()) * 3,)
        return (replace(previous_state, jit_mode=True, shape=shape, dtype=dtype),
                (AllocationQuery(shape, dtype), AllocationQuery(largest, dtype)))

    def generate_code(self):
        mem_read = self.memory_read
        my_range = Compiler.get_iterator()
        imdecode_c = Compiler.compile(imdecode)
        resize_c = Compiler.compile(resize_crop)
        bounds_c = Compiler.compile(clip_frame_bounds)
        window_c = Compiler.compile(clip_window_start)
        stored_c = Compiler.compile(clip_stored_frame)
        flip_c = Compiler.compile(clip_flip)
        crop_c = Compiler.compile(clip_random_crop)
        jpg = CLIP_MODE_JPG
        every = self.every
        window = int(self.window or 0)
        flip = self.flip
        scale = np.array(self.scale)
        ratio = np.array(self.ratio)

        def decode(batch_indices, my_storage, metadata, storage_state):
            destination, temp_storage = my_storage
            for dst_ix in my_range(len(batch_indices)):
                field = metadata[batch_indices[dst_ix]]
                buf = mem_read(field["data_ptr"], storage_state)
                count = np.int64(field["num_frames"])
                height = np.uint32(field["height"])
                width = np.uint32(field["width"])
                clip = destination[dst_ix]
                start = window_c(count, window)
                i, j, h, w = crop_c(height, width, scale, ratio)
                previous = -1
                for t in range(clip.shape[0]):
                    k = stored_c(t, count, start, every)
                    if k == previous:
                        clip[t] = clip[t - 1]
                        continue
                    previous = k
                    a, b = bounds_c(buf, k)
                    if field["mode"] == jpg:
                        pixels = temp_storage[dst_ix][:np.int64(height) * np.int64(width) * 3]
                        imdecode_c(buf[a:b], pixels, height, width, height, width, 0, 0, 1, 1, False, False)
                        frame = pixels.reshape(height, width, 3)
                    else:
                        frame = buf[a:b].reshape(height, width, 3)
                    resize_c(frame, i, i + h, j, j + w, clip[t])
                if flip > 0 and np.random.rand() < flip:
                    flip_c(clip)
            return destination[:len(batch_indices)]

        decode.is_parallel = True
        return decode


class VideoClipField(Field):
    """Beton Studio's video_clip field (type id 255): per sample T frames, JPEG or raw, in one heap object."""

    def __init__(self, write_mode="jpg", jpeg_quality=90, max_resolution=None, frames=None):
        self.write_mode = write_mode
        self.jpeg_quality = int(jpeg_quality)
        self.max_resolution = max_resolution
        self.frames = frames

    @property
    def metadata_type(self):
        return CLIP_METADATA

    @staticmethod
    def from_binary(binary):
        raw = np.asarray(binary).tobytes()
        if raw[:4] != CLIP_MAGIC:
            raise ValueError("not a Beton Studio custom field (its arguments do not start with BTSF)")
        length = int.from_bytes(raw[4:6], "little")
        spec = json.loads(raw[6:6 + length].decode("utf-8"))
        if spec.get("type") != "video_clip":
            raise ValueError("a Beton Studio %r field, not video_clip" % spec.get("type"))
        return VideoClipField(spec.get("writeMode", "jpg"), spec.get("jpegQuality", 90), spec.get("maxResolution"), spec.get("frames"))

    def to_binary(self):
        spec = {"type": "video_clip", "writeMode": self.write_mode, "jpegQuality": self.jpeg_quality,
                "maxResolution": self.max_resolution, "frames": self.frames}
        text = json.dumps(spec, separators=(",", ":")).encode("utf-8")
        blob = CLIP_MAGIC + len(text).to_bytes(2, "little") + text
        result = np.zeros(1, dtype=ARG_TYPE)[0]
        result[0][:len(blob)] = np.frombuffer(blob, dtype="<u1")
        return result

    def encode(self, destination, clip, malloc):
        """clip: a (T, H, W, 3) uint8 RGB array, or (array, fps)."""
        fps = None
        if isinstance(clip, tuple):
            clip, fps = clip
        clip = np.asarray(clip)
        if clip.dtype != np.uint8 or clip.ndim != 4 or clip.shape[3] != 3:
            raise ValueError("a clip is a (T, H, W, 3) uint8 array, got %s %s" % (clip.dtype, clip.shape))
        if clip.shape[0] < 1:
            raise ValueError("a clip has at least one frame")
        if self.frames is not None and clip.shape[0] != self.frames:
            raise ValueError("the field declares %d frames per clip, got %d" % (self.frames, clip.shape[0]))
        stored = []
        for frame in clip:
            height, width = frame.shape[:2]
            if self.max_resolution is not None and max(width, height) > self.max_resolution:
                ratio = self.max_resolution / max(width, height)
                frame = cv2.resize(frame, (int(ratio * width), int(ratio * height)), interpolation=cv2.INTER_AREA)
            if self.write_mode == "jpg":
                ok, data = cv2.imencode(".jpg", cv2.cvtColor(frame, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, self.jpeg_quality])
                if not ok:
                    raise ValueError("cannot encode a frame as JPEG")
                stored.append(data.reshape(-1))
            else:
                stored.append(np.ascontiguousarray(frame).reshape(-1))
        offsets = [4 * (len(stored) + 1)]
        for s in stored:
            offsets.append(offsets[-1] + s.nbytes)
        height, width = frame.shape[:2]
        num, den = (0, 1) if fps is None else (fps if isinstance(fps, tuple) else (int(round(fps * 1000)), 1000))
        destination["mode"] = CLIP_MODE_JPG if self.write_mode == "jpg" else CLIP_MODE_RAW
        destination["num_frames"] = len(stored)
        destination["width"], destination["height"] = width, height
        destination["fps_num"], destination["fps_den"] = num, den
        destination["data_ptr"], storage = malloc(offsets[-1])
        destination["data_size"] = offsets[-1]
        storage[:offsets[0]] = np.array(offsets, dtype="<u4").view("<u1")
        for s, start in zip(stored, offsets):
            storage[start:start + s.nbytes] = s

    def get_decoder_class(self):
        return VideoClipDecoder
# --- end of Beton Studio video clips ---
`;

/** The FFCV constructor call for a video_clip field config. */
export function videoFieldPy(f: Extract<FieldConfig, { type: typeof FIELD_TYPE.videoClip }>): string {
  const none = (v: number | null): string => (v === null ? 'None' : String(v));
  return `VideoClipField(write_mode=${JSON.stringify(f.writeMode)}, jpeg_quality=${f.jpegQuality}, max_resolution=${none(f.maxResolution)}, frames=${none(f.frames)})`;
}

/**
 * The Python decoder for one of our clip decoder steps, with the same options. Numbers are
 * written as JavaScript prints them, the shortest text that reads back as the same double
 * in Python, so deterministic crops compute the same rectangle on both sides.
 */
export function clipDecoderPy(s: ClipDecoderConfig, note: (text: string) => void): string {
  const args: string[] = [];
  if (s.frames !== undefined) args.push(`frames=${s.frames}`);
  if (s.temporal?.mode === 'every' && s.temporal.k !== 1) args.push(`every=${s.temporal.k}`);
  if (s.temporal?.mode === 'random_window') args.push(`window=${s.temporal.length}`);
  if (s.flip) args.push(`flip=${s.flip}`);
  if (s.decoder === 'clip_simple') {
    // Our size only restates the file's frame size (another size is an error per clip); FFCV's decoder reads it from the file.
    if (s.size) note(`VideoClipDecoder takes the frame size from the file (${s.size[0]}x${s.size[1]} given)`);
    return `VideoClipDecoder(${args.join(', ')})`;
  }
  const pair = (p: readonly [number, number]): string => `(${p[0]}, ${p[1]})`;
  return `VideoClipRandomResizedCropDecoder(${[pair(s.size), `scale=${pair(s.scale)}`, `ratio=${pair(s.ratio)}`, ...args].join(', ')})`;
}
