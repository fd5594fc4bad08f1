import { BetonEncodeError } from '../format/errors.js';
import type { EncodedValue } from '../fields/field.js';
import type { ImageCodec } from '../fields/image-codec.js';
import type { NamedField } from '../fields/schema.js';
import { isSkipMarker, type Sample } from './sample.js';
import { sampleRandom } from './sample-random.js';
import { ownValue } from '../format/own-keys.js';

export interface EncodeOptions {
  codec?: ImageCodec;
  seed: number;
  baseDir?: string;
  /** Source position of item 0: per-sample draws key on the source index, so a shard draws what a whole build draws there. */
  indexBase?: number;
  /** The file's page size: fields may refuse what cannot fit before encoding it. */
  maxObjectBytes?: number;
}

/** Encodes every field of one sample; errors name the sample, the field and the source. */
export async function encodeSample(
  fields: readonly NamedField[],
  sample: Sample,
  index: number,
  opts: EncodeOptions,
): Promise<EncodedValue[]> {
  const raw = sample as unknown;
  if (raw === null || typeof raw !== 'object') {
    const got = raw === null ? 'null' : raw === undefined ? 'undefined' : `a ${typeof raw}`;
    throw new BetonEncodeError(
      'BAD_VALUE',
      `sample ${index} is ${got}; a source yields one object per sample (field name → value), or an array in field order`,
      { sample: index },
    );
  }
  if (isSkipMarker(sample)) {
    const { reason, source, field } = sample.__betonSkip;
    throw new BetonEncodeError('BAD_VALUE', reason, { sample: index, ...(source ? { source } : {}), ...(field ? { field } : {}) });
  }
  const random = sampleRandom(opts.seed, (opts.indexBase ?? 0) + index);
  const out: EncodedValue[] = [];
  for (let f = 0; f < fields.length; f++) {
    const { name, field } = fields[f]!;
    const value = Array.isArray(sample) ? sample[f] : ownValue(sample, name);
    if (value === undefined) {
      throw new BetonEncodeError('BAD_VALUE', `sample ${index} has no value for field "${name}"`, { sample: index, field: name });
    }
    try {
      out.push(
        await field.encode(value, {
          codec: opts.codec,
          random,
          sampleIndex: index,
          baseDir: opts.baseDir,
          ...(opts.maxObjectBytes ? { maxObjectBytes: opts.maxObjectBytes } : {}),
        }),
      );
    } catch (e) {
      const err = e as Error & { code?: string };
      const src = describeSource(value);
      throw new BetonEncodeError(
        err instanceof BetonEncodeError ? err.code : 'BAD_VALUE',
        `sample ${index}, field "${name}"${src ? ` (${src})` : ''}: ${err.message}`,
        { sample: index, field: name, ...(src ? { source: src } : {}) },
      );
    }
  }
  return out;
}

function describeSource(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object' && 'path' in v && typeof (v as { path: unknown }).path === 'string') return (v as { path: string }).path;
  if (v && typeof v === 'object' && 'name' in v && typeof (v as { name: unknown }).name === 'string') return (v as { name: string }).name;
  return undefined;
}
