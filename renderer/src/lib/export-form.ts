/** The Export screen's loader settings → a LoaderConfig input for export.generate. */
import { FIELD_TYPE } from '../../../core/api/constants.js';
import type { InspectResult } from '../../../core/api/contract.js';
import type { LoaderConfigInput } from '../../../core/api/loader-config.js';
import type { FormErrors } from './build-form.js';
import type { DecoderKind } from './profile-form.js';
import type { OrderName } from './types.js';

export interface ExportForm {
  file: string;
  batchSize: string;
  /** '' = one per core. */
  numWorkers: string;
  order: OrderName;
  osCache: boolean;
  dropLast: boolean;
  seed: string;
  /** The loader's batches_ahead; '' = its default (3). */
  batchesAhead?: string;
  decoder: DecoderKind;
  size: string;
  flip: boolean;
  normalize: boolean;
  includeBuild: boolean;
  format: 'python' | 'json';
}

export const DEFAULT_EXPORT_FORM: ExportForm = {
  file: '',
  batchSize: '256',
  numWorkers: '',
  order: 'random',
  osCache: true,
  dropLast: true,
  seed: '0',
  decoder: 'rrc',
  size: '160',
  flip: true,
  normalize: false,
  includeBuild: false,
  format: 'python',
};

const IMAGENET_MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255].map((v) => Math.round(v * 1000) / 1000);
const IMAGENET_STD = [0.229 * 255, 0.224 * 255, 0.225 * 255].map((v) => Math.round(v * 1000) / 1000);

type Pipeline = NonNullable<NonNullable<LoaderConfigInput['pipelines']>[string]>;

/** One pipeline per field: images get the decoder and augmentations, the rest their plain decoder. */
export function pipelinesFor(
  fields: InspectResult['fields'],
  form: Pick<ExportForm, 'decoder' | 'size' | 'flip' | 'normalize'>,
): Record<string, Pipeline | null> {
  const out: Record<string, Pipeline | null> = {};
  const size = Number(form.size);
  for (const f of fields) {
    switch (f.type) {
      case FIELD_TYPE.rgbImage: {
        const steps: Pipeline = [
          form.decoder === 'simple'
            ? { decoder: 'simple_rgb' }
            : form.decoder === 'rrc'
              ? { decoder: 'random_resized_crop', size: [size, size] }
              : { decoder: 'center_crop', size: [size, size] },
        ];
        if (form.flip) steps.push({ op: 'random_horizontal_flip' });
        // Normalize on HWC pixels (uint8 in, float out), then channels first.
        if (form.normalize) steps.push({ op: 'normalize', mean: IMAGENET_MEAN, std: IMAGENET_STD });
        steps.push({ op: 'to_chw' });
        out[f.name] = steps;
        break;
      }
      case 'int':
        out[f.name] = [{ decoder: 'int' }];
        break;
      case 'float':
        out[f.name] = [{ decoder: 'float' }];
        break;
      case FIELD_TYPE.ndarray:
      case FIELD_TYPE.torchTensor:
        out[f.name] = [{ decoder: 'ndarray' }];
        break;
      case 'bytes':
        out[f.name] = [{ decoder: 'bytes' }];
        break;
      default:
        // JSON and custom fields: FFCV has no tensor decoder for them; leave them out of batches.
        out[f.name] = null;
    }
  }
  return out;
}

export function validateExportForm(
  form: ExportForm,
  fields: InspectResult['fields'] | null,
): { errors: FormErrors; loader: LoaderConfigInput | null } {
  const errors: FormErrors = {};
  if (!form.file.trim()) errors.file = 'Choose the .beton file the loader reads.';
  const bs = Number(form.batchSize);
  if (!(Number.isInteger(bs) && bs > 0)) errors.batchSize = 'Batch size: a positive whole number.';
  let numWorkers: number | undefined;
  if (form.numWorkers.trim()) {
    numWorkers = Number(form.numWorkers);
    if (!(Number.isInteger(numWorkers) && numWorkers > 0))
      errors.numWorkers = 'Workers: a positive whole number, or empty for one per core.';
  }
  const seed = Number(form.seed);
  if (!(Number.isInteger(seed) && seed >= 0)) errors.seed = 'Seed: a whole number, 0 or more.';
  if (form.decoder !== 'simple' && !(Number.isInteger(Number(form.size)) && Number(form.size) >= 8))
    errors.size = 'Crop size: a whole number of pixels, at least 8.';
  const ahead = form.batchesAhead?.trim() ? Number(form.batchesAhead) : null;
  if (ahead !== null && !(Number.isInteger(ahead) && ahead >= 1 && ahead <= 64))
    errors.batchesAhead = 'Batches ahead: a whole number from 1 to 64.';
  if (Object.keys(errors).length) return { errors, loader: null };
  return {
    errors,
    loader: {
      file: form.file.trim(),
      batchSize: bs,
      ...(numWorkers !== undefined ? { numWorkers } : {}),
      order: form.order,
      seed,
      dropLast: form.dropLast,
      osCache: form.osCache,
      ...(ahead !== null ? { batchesAhead: ahead } : {}),
      pipelines: fields ? pipelinesFor(fields, form) : {},
    },
  };
}

/** A file name for saving generated code. */
export function exportFileName(file: string, format: 'python' | 'json'): string {
  const base = (file.split(/[\\/]/).pop() ?? 'dataset').replace(/\.beton$/i, '') || 'dataset';
  return `${base}_loader.${format === 'python' ? 'py' : 'json'}`;
}
