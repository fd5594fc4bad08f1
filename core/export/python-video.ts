import type { FieldConfig } from '../api/build-config.js';

/**
 * Python for reading (and writing) our video .beton files with FFCV: a custom Field with
 * the same packed metadata struct and argument blob as core/fields/video-clip-field.ts,
 * and a decoder that returns (T, H, W, 3) uint8 clips, each frame through cv2.imdecode.
 * FFCV opens a file with a type-255 field only when it is named in `custom_fields`, so
 * the exported Loader passes `custom_fields={'clip': VideoClipField}`.
 */
export const VIDEO_CLIP_PYTHON = String.raw`# --- Beton Studio video clips for FFCV (generated; layout in docs/video.md) ---
import json
from dataclasses import replace

import cv2
import numpy as np
from ffcv.fields.base import Field, ARG_TYPE
from ffcv.pipeline.allocation_query import AllocationQuery
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


def clip_frame_ranges(buf, count):
    """(start, end) of each frame in a clip's heap object: a table of count + 1 <u4 offsets, then the frames."""
    offsets = np.frombuffer(buf[:4 * (count + 1)].tobytes(), dtype="<u4")
    return [(int(offsets[k]), int(offsets[k + 1])) for k in range(count)]


def decode_clip_into(field, buf, out, every=1):
    """Decodes one clip into out (T, H, W, 3) uint8; a clip shorter than T repeats its last frame."""
    count = int(field["num_frames"])
    ranges = clip_frame_ranges(buf, count)
    height, width = int(field["height"]), int(field["width"])
    for t in range(out.shape[0]):
        start, end = ranges[min(t * every, count - 1)]
        frame = buf[start:end]
        if field["mode"] == CLIP_MODE_RAW:
            out[t] = frame.reshape(height, width, 3)
        else:
            bgr = cv2.imdecode(np.asarray(frame), cv2.IMREAD_COLOR)
            cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB, dst=out[t])
    return out


class VideoClipDecoder(Operation):
    """(T, H, W, 3) uint8 clips; T = frames (default: the longest clip), every k-th stored frame."""

    def __init__(self, frames=None, every=1):
        super().__init__()
        self.frames = frames
        self.every = every

    def declare_state_and_memory(self, previous_state):
        widths, heights = self.metadata["width"], self.metadata["height"]
        if widths.min() != widths.max() or heights.min() != heights.max():
            raise ValueError("VideoClipDecoder needs frames of one size; rebuild with a max_resolution that gives one size")
        longest = int(self.metadata["num_frames"].max())
        frames = int(self.frames or -(-longest // self.every))
        shape = (frames, int(heights.max()), int(widths.max()), 3)
        dtype = np.dtype("<u1")
        # Not JIT-compiled: cv2.imdecode is a Python call per frame.
        return replace(previous_state, jit_mode=False, shape=shape, dtype=dtype), AllocationQuery(shape, dtype)

    def generate_code(self):
        mem_read = self.memory_read
        every = self.every

        def decode(batch_indices, destination, metadata, storage_state):
            for dst_ix in range(len(batch_indices)):
                field = metadata[batch_indices[dst_ix]]
                buf = mem_read(field["data_ptr"], storage_state)
                decode_clip_into(field, buf, destination[dst_ix], every)
            return destination[:len(batch_indices)]

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
export function videoFieldPy(f: Extract<FieldConfig, { type: 'video_clip' }>): string {
  const none = (v: number | null): string => (v === null ? 'None' : String(v));
  return `VideoClipField(write_mode=${JSON.stringify(f.writeMode)}, jpeg_quality=${f.jpegQuality}, max_resolution=${none(f.maxResolution)}, frames=${none(f.frames)})`;
}

/** The `custom_fields=` argument of FFCV's Loader for these video fields. */
export function customFieldsPy(videoFields: readonly string[]): string {
  return `{${videoFields.map((n) => `${JSON.stringify(n)}: VideoClipField`).join(', ')}}`;
}

/** Lines describing a video source to FFCV users (FFCV has no video reader). */
export function videoSourcePy(src: { type: 'video_folder' | 'video_list'; path: string; clipLength: number; stride?: number | undefined; fps: number | null }, fieldNames: readonly string[]): string[] {
  const stride = src.stride ?? src.clipLength;
  return [
    `# Source ${src.type} ${JSON.stringify(src.path)}: FFCV has no video reader. Provide an indexed dataset of clips`,
    `# (${src.clipLength} frames each, starts ${stride} frames apart${src.fps ? `, resampled to ${src.fps} fps` : ''}) returning one tuple per clip,`,
    `# in this field order: (${fieldNames.join(', ')}); the clip as a (T, H, W, 3) uint8 RGB array (e.g. decoded with`,
    '# torchvision.io.read_video or PyAV). Beton Studio builds the same file with: beton build --config build.json',
    'dataset = ...  # e.g. a torch.utils.data.Dataset',
  ];
}
