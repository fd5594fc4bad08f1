/**
 * The Sources screen's editable schema: detected source → form (strings while typing) →
 * validated BuildConfig input with messages keyed by the input they belong to.
 */
import type { DetectedSource } from '../../../core/api/contract.js';
import type { BuildConfigInput, FieldConfig } from '../../../core/api/build-config.js';
import {
  FIELD_TYPE,
  ARRAY_DTYPES,
  COMPRESS_PROBABILITY,
  DEFAULT_CLIP_LENGTH,
  DEFAULT_IMAGE_WRITE_MODE,
  DEFAULT_MAX_RESOLUTION,
  DEFAULT_SMART_THRESHOLD,
  FIELD_TYPES as CONTRACT_FIELD_TYPES,
  IMAGE_WRITE_MODES,
  JPEG_QUALITY,
  PAGE_SIZE,
  type ImageWriteMode,
} from '../../../core/api/constants.js';
import { suggestOutput } from './format.js';

export type FieldType = FieldConfig['type'];
export type WriteMode = ImageWriteMode;
/** The types any source can fill (video clips only come from videos: fieldTypesFor). */
export const FIELD_TYPES: FieldType[] = CONTRACT_FIELD_TYPES.filter((t) => t !== FIELD_TYPE.videoClip);
export type SourceType = DetectedSource['source']['type'];

/** The field types a source can fill: clips only from videos, and only videos give clips. */
export function fieldTypesFor(source: SourceType): FieldType[] {
  return source === 'video_folder' || source === 'video_list' ? [FIELD_TYPE.videoClip, ...FIELD_TYPES] : FIELD_TYPES;
}

/** A string column read as an int label: its categories (value → index), while they are read, or why not. */
export type LabelMap = { state: 'loading' } | { state: 'ready'; categories: string[] } | { state: 'error'; message: string };
export const WRITE_MODES: readonly WriteMode[] = IMAGE_WRITE_MODES;
export const DTYPES: readonly string[] = ARRAY_DTYPES;
const MIN_PAGE_MIB = PAGE_SIZE.minWriter / 2 ** 20;
const QUALITY_MESSAGE = `JPEG quality: ${JPEG_QUALITY.min} to ${JPEG_QUALITY.max}.`;

export interface FieldForm {
  name: string;
  type: FieldType;
  writeMode: WriteMode;
  maxResolution: string;
  smartThreshold: string;
  jpegQuality: string;
  compressProbability: string;
  passThrough: boolean;
  dtype: string;
  shape: string;
  columns: string[] | undefined;
  /** The type detection gave and the column it read: a string column (json/bytes) becomes an int label through categories. */
  detectedType: FieldType;
  sourceColumn: string;
  labelMap: LabelMap | null;
}

/** A video source's clipping (strings while typing). */
export interface ClipForm {
  clipLength: string;
  /** '' = clipLength (back to back). */
  stride: string;
  /** '' = each video's own rate. */
  fps: string;
}

export interface BuildForm {
  source: DetectedSource['source'];
  length: number | null;
  fields: FieldForm[];
  output: string;
  /** Page size in MiB (FFCV: a power of two, at least 2 MiB). */
  pageSizeMiB: string;
  /** Why detection proposed a page size other than FFCV's default (a small table); null: the default. */
  pageSizeWhy?: string | null;
  /** '' = one per core. */
  workers: string;
  /** The seed of per-sample draws (proportion mode); '' = 0. */
  seed: string;
  onError: 'fail' | 'skip';
  /** Video sources only. */
  clip: ClipForm | null;
}

/** An image option as typed: a config's null (none) is empty, an absent one is the build default (core/api/constants.ts). */
const optionText = (v: number | null | undefined, fallback: number): string => (v === null ? '' : String(v ?? fallback));

/** An image's storage options as the form starts them: the build defaults. */
const IMAGE_DEFAULTS: Pick<FieldForm, 'writeMode' | 'maxResolution' | 'smartThreshold'> = {
  writeMode: DEFAULT_IMAGE_WRITE_MODE,
  maxResolution: String(DEFAULT_MAX_RESOLUTION),
  smartThreshold: String(DEFAULT_SMART_THRESHOLD),
};

/**
 * A field config as the form edits it. The image options start from the build defaults that
 * `beton build` and build configs use (smart, 12288-byte threshold, 512 px), so a field
 * turned into an image, or a config without them, builds as the CLI would, not raw.
 */
export function fieldToForm(f: FieldConfig): FieldForm {
  const base: FieldForm = {
    name: f.name,
    type: f.type,
    ...IMAGE_DEFAULTS,
    jpegQuality: String(JPEG_QUALITY.default),
    compressProbability: String(COMPRESS_PROBABILITY.default),
    passThrough: false,
    dtype: 'float32',
    shape: '1',
    columns: f.columns,
    detectedType: f.type,
    sourceColumn: f.columns?.[0] ?? f.name,
    labelMap: f.type === 'int' && f.categories ? { state: 'ready', categories: f.categories } : null,
  };
  if (f.type === FIELD_TYPE.videoClip) {
    return {
      ...base,
      writeMode: f.writeMode ?? 'jpg',
      jpegQuality: String(f.jpegQuality ?? JPEG_QUALITY.default),
      maxResolution: f.maxResolution === null || f.maxResolution === undefined ? '' : String(f.maxResolution),
    };
  }
  if (f.type === FIELD_TYPE.rgbImage) {
    return {
      ...base,
      writeMode: f.writeMode ?? DEFAULT_IMAGE_WRITE_MODE,
      maxResolution: optionText(f.maxResolution, DEFAULT_MAX_RESOLUTION),
      smartThreshold: optionText(f.smartThreshold, DEFAULT_SMART_THRESHOLD),
      jpegQuality: String(f.jpegQuality ?? JPEG_QUALITY.default),
      compressProbability: String(f.compressProbability ?? COMPRESS_PROBABILITY.default),
      passThrough: f.passThrough ?? false,
    };
  }
  if (f.type === FIELD_TYPE.ndarray || f.type === FIELD_TYPE.torchTensor) return { ...base, dtype: f.dtype, shape: f.shape.join(', ') };
  return base;
}

export function formFromDetected(d: DetectedSource): BuildForm {
  return {
    source: d.source,
    length: d.length,
    fields: d.fields.map(fieldToForm),
    output: suggestOutput(d.source.path),
    pageSizeMiB: String((d.pageSize?.bytes ?? PAGE_SIZE.default) / 2 ** 20),
    pageSizeWhy: d.pageSize?.why ?? null,
    workers: '',
    seed: '',
    onError: 'fail',
    clip:
      d.source.type === 'video_folder' || d.source.type === 'video_list'
        ? {
            clipLength: String(d.source.clipLength),
            stride: d.source.stride === undefined ? '' : String(d.source.stride),
            fps: d.source.fps === null || d.source.fps === undefined ? '' : String(d.source.fps),
          }
        : null,
  };
}

/** A string column (detected as json/bytes text) turned into an int: it needs categories. */
export function needsCategories(f: Pick<FieldForm, 'type' | 'detectedType'>): boolean {
  return f.type === 'int' && (f.detectedType === 'json' || f.detectedType === 'bytes');
}

/** The video source's clipping from the form, with messages keyed 'clip.clipLength', 'clip.stride', 'clip.fps'. */
function clipOptions(clip: ClipForm, errors: FormErrors): { clipLength: number; stride?: number; fps: number | null } {
  const clipLength = intIn(clip.clipLength, 1, 65535);
  if (clipLength === null) errors['clip.clipLength'] = 'Clip length: a whole number of frames, 1 to 65535.';
  let stride: number | undefined;
  if (clip.stride.trim()) {
    const s = intIn(clip.stride, 1, 65535);
    if (s === null) errors['clip.stride'] = 'Stride: a whole number of frames between clip starts, or empty for back-to-back clips.';
    else stride = s;
  }
  let fps: number | null = null;
  if (clip.fps.trim()) {
    const v = Number(clip.fps);
    if (!Number.isFinite(v) || v <= 0 || v > 1000)
      errors['clip.fps'] = "Frame rate: a positive number of frames per second, or empty for each video's own.";
    else fps = v;
  }
  return { clipLength: clipLength ?? DEFAULT_CLIP_LENGTH, ...(stride !== undefined ? { stride } : {}), fps };
}

/** Messages keyed by input: 'output', 'pageSize', 'workers', 'fields.0.name', 'fields.1.jpegQuality', … */
export type FormErrors = Record<string, string>;

const intIn = (s: string, lo: number, hi = Number.MAX_SAFE_INTEGER): number | null => {
  if (!/^\s*-?\d+\s*$/.test(s)) return null;
  const n = Number(s);
  return n >= lo && n <= hi ? n : null;
};

/** Errors block the build; warnings only inform (the build would run, perhaps not as meant). */
export function validateBuildForm(form: BuildForm): { errors: FormErrors; warnings: FormErrors; config: BuildConfigInput | null } {
  const errors: FormErrors = {};
  const warnings: FormErrors = {};
  const out = form.output.trim();
  if (!out) errors.output = 'Give the output file.';
  else if (!/\.beton$/i.test(out)) errors.output = 'The output should end in .beton.';
  else if (out.replace(/[\\/]+$/, '') === form.source.path.replace(/[\\/]+$/, ''))
    errors.output = 'The output cannot be the source itself.';

  const mib = Number(form.pageSizeMiB);
  const pageSize = Math.round(mib * 1024 * 1024);
  if (!form.pageSizeMiB.trim() || !Number.isFinite(mib)) errors.pageSize = 'Give the page size in MiB.';
  else if (mib < MIN_PAGE_MIB) errors.pageSize = `FFCV needs pages of at least ${MIN_PAGE_MIB} MiB.`;
  else if (!Number.isInteger(Math.log2(pageSize))) errors.pageSize = 'The page size must be a power of two (2, 4, 8, 16… MiB).';

  let numWorkers: number | undefined;
  if (form.workers.trim()) {
    const w = intIn(form.workers, 0, 256);
    if (w === null) errors.workers = 'Workers: a whole number from 0 (encode on one thread) to 256, or empty for one per core.';
    else numWorkers = w;
  }

  let seed: number | undefined;
  if (form.seed.trim()) {
    const v = intIn(form.seed, 0, 2 ** 31 - 1);
    if (v === null) errors.seed = 'Seed: a whole number from 0 to 2147483647, or empty for 0.';
    else seed = v;
  }

  let source = form.source;
  let clipFrames: number | null = null;
  if (form.clip && (source.type === 'video_folder' || source.type === 'video_list')) {
    const c = clipOptions(form.clip, errors);
    const { stride: _oldStride, ...rest } = source;
    source = { ...rest, clipLength: c.clipLength, fps: c.fps, ...(c.stride !== undefined ? { stride: c.stride } : {}) };
    clipFrames = c.clipLength;
  }

  const names = new Set<string>();
  const fields: FieldConfig[] = [];
  form.fields.forEach((f, i) => {
    const k = (key: string): string => `fields.${i}.${key}`;
    const name = f.name.trim();
    if (!name) errors[k('name')] = 'A field needs a name.';
    else if (names.has(name)) errors[k('name')] = `Two fields are called "${name}".`;
    names.add(name);
    const columns = f.columns ? { columns: f.columns } : {};
    switch (f.type) {
      case FIELD_TYPE.rgbImage: {
        let maxResolution: number | null = null;
        if (f.maxResolution.trim()) {
          maxResolution = intIn(f.maxResolution, 1, 65535);
          if (maxResolution === null) errors[k('maxResolution')] = 'Max resolution: a whole number of pixels (1–65535), or empty for none.';
        }
        let smartThreshold: number | null = null;
        if (f.smartThreshold.trim()) {
          smartThreshold = intIn(f.smartThreshold, 1);
          if (smartThreshold === null) errors[k('smartThreshold')] = 'Smart threshold: a positive number of bytes, or empty.';
        }
        const q = intIn(f.jpegQuality, JPEG_QUALITY.min, JPEG_QUALITY.max);
        if (q === null) errors[k('jpegQuality')] = QUALITY_MESSAGE;
        const p = Number(f.compressProbability);
        if (!f.compressProbability.trim() || !Number.isFinite(p) || p < COMPRESS_PROBABILITY.min || p > COMPRESS_PROBABILITY.max)
          errors[k('compressProbability')] = `Compress probability: ${COMPRESS_PROBABILITY.min} to ${COMPRESS_PROBABILITY.max}.`;
        if (f.passThrough && f.writeMode === 'raw')
          warnings[k('passThrough')] = 'Pass-through has no effect in raw mode: it keeps source JPEGs only where a JPEG would be written.';
        if (f.smartThreshold.trim() && f.writeMode !== 'smart')
          warnings[k('smartThreshold')] = 'The smart threshold is used only in smart mode.';
        fields.push({
          name,
          type: FIELD_TYPE.rgbImage,
          writeMode: f.writeMode,
          maxResolution,
          smartThreshold,
          jpegQuality: q ?? JPEG_QUALITY.default,
          compressProbability: Number.isFinite(p) ? p : COMPRESS_PROBABILITY.default,
          passThrough: f.passThrough,
          ...columns,
        });
        break;
      }
      case FIELD_TYPE.ndarray:
      case FIELD_TYPE.torchTensor: {
        const shape = f.shape
          .split(/[,x×\s]+/)
          .filter(Boolean)
          .map(Number);
        if (!shape.length || shape.some((n) => !Number.isInteger(n) || n <= 0))
          errors[k('shape')] = 'Shape: positive whole numbers separated by commas, e.g. 28, 28.';
        if (!DTYPES.includes(f.dtype)) errors[k('dtype')] = `Unknown dtype ${f.dtype}.`;
        fields.push({ name, type: f.type, dtype: f.dtype, shape, ...columns });
        break;
      }
      case FIELD_TYPE.videoClip: {
        // Every clip has the source's clip length: the field says so, and the writer checks it.
        const q = intIn(f.jpegQuality, JPEG_QUALITY.min, JPEG_QUALITY.max);
        if (q === null) errors[k('jpegQuality')] = QUALITY_MESSAGE;
        let maxResolution: number | null = null;
        if (f.maxResolution.trim()) {
          maxResolution = intIn(f.maxResolution, 1, 65535);
          if (maxResolution === null) errors[k('maxResolution')] = 'Max resolution: a whole number of pixels (1–65535), or empty for none.';
        }
        if (clipFrames === null) errors[k('type')] = 'A video clip field needs a video source (a folder of videos, or a list of them).';
        fields.push({
          name,
          type: FIELD_TYPE.videoClip,
          writeMode: f.writeMode === 'raw' ? 'raw' : 'jpg',
          jpegQuality: q ?? JPEG_QUALITY.default,
          maxResolution,
          frames: clipFrames,
          ...columns,
        });
        break;
      }
      case 'int': {
        if (!needsCategories(f)) {
          fields.push({ name, type: 'int', ...columns });
          break;
        }
        const m = f.labelMap;
        if (!m || m.state === 'loading') errors[k('labels')] = "Reading the column's values for the label mapping…";
        else if (m.state === 'error') errors[k('labels')] = `Cannot map this column to integers: ${m.message}`;
        // The source column by its own name: the field may have been renamed.
        fields.push({
          name,
          type: 'int',
          ...(m?.state === 'ready' ? { categories: m.categories } : {}),
          columns: f.columns ?? [f.sourceColumn],
        });
        break;
      }
      default:
        fields.push({ name, type: f.type, ...columns });
    }
  });
  if (!form.fields.length) errors.fields = 'A dataset needs at least one field.';

  if (form.length === 0) warnings.source = 'The source has no samples: the dataset would be empty.';
  if (Object.keys(errors).length) return { errors, warnings, config: null };
  return {
    errors,
    warnings,
    config: {
      source,
      output: out,
      fields,
      pageSize,
      ...(numWorkers !== undefined ? { numWorkers } : {}),
      ...(seed !== undefined ? { seed } : {}),
      onError: form.onError,
    },
  };
}

/** A field changed to another type keeps its name and columns, with that type's defaults; a label mapping belongs to the int type only. */
export function changeFieldType(f: FieldForm, type: FieldType): FieldForm {
  const next: FieldForm = { ...f, type, labelMap: type === 'int' ? f.labelMap : null };
  if (type === f.type) return next;
  // The storage options mean different things for images and clips: each starts from its own defaults.
  if (type === FIELD_TYPE.rgbImage) {
    return { ...next, ...IMAGE_DEFAULTS };
  }
  if (type === FIELD_TYPE.videoClip) return { ...next, writeMode: 'jpg', maxResolution: '' };
  return next;
}
