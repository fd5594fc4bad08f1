import { writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { parseBuildConfig } from '../api/build-config.js';
import { parseLoaderConfig, type LoaderConfigInput } from '../api/loader-config.js';
import { buildExport, joinCode, loaderExport } from '../app/export-code.js';
import { Reader } from '../reader/reader.js';
import { isRemoteUrl } from '../remote/url.js';
import { UsageError } from './usage-error.js';
import { readRegularText } from '../native/regular-file.js';

export const EXPORT_HELP = `beton export --build build.json [--format python|json] [-o FILE]
beton export --loader loader.json [--format python|json] [-o FILE]
beton export FILE.beton [--batch-size B] [--workers N] [--order sequential|random|quasi_random]
             [--decoder simple|rrc:SIZE|center:SIZE] [--clip-decoder simple|rrc:SIZE] [--flip]
             [--no-os-cache] [--format python|json]

Turns a build config into the Python FFCV DatasetWriter code that builds the same file,
and a loader config (or flags for a .beton file) into the Python FFCV Loader code that
loads it the same way. --decoder is for image fields, --clip-decoder for video clip fields
(default simple: whole frames); --flip mirrors images and clips with probability 0.5.
--format json prints the validated config (defaults filled in).`;

function readJson(file: string): unknown {
  try {
    return JSON.parse(readRegularText(file, 'config'));
  } catch (e) {
    throw new UsageError(`cannot read ${file}: ${(e as Error).message}`);
  }
}

export async function exportCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      build: { type: 'string' },
      loader: { type: 'string' },
      format: { type: 'string', default: 'python' },
      output: { type: 'string', short: 'o' },
      'batch-size': { type: 'string' },
      workers: { type: 'string' },
      order: { type: 'string' },
      decoder: { type: 'string' },
      'clip-decoder': { type: 'string' },
      flip: { type: 'boolean' },
      'no-os-cache': { type: 'boolean' },
    },
  });
  const format = values.format;
  if (format !== 'python' && format !== 'json') throw new UsageError(`--format expects python or json, got "${format}"`);
  const parts: string[] = [];
  const docs: Record<string, unknown> = {};
  if (values.build) {
    const file = resolve(values.build);
    const r = parseBuildConfig(readJson(file));
    if (!r.ok) throw new UsageError(`invalid build config ${file}:\n  ${r.errors.join('\n  ')}`);
    const base = dirname(file);
    const cfg = {
      ...r.value,
      source: { ...r.value.source, path: resolve(base, r.value.source.path) },
      output: resolve(base, r.value.output),
    };
    const { text, fields } = await buildExport(cfg, base);
    parts.push(text);
    docs.build = { ...cfg, fields };
  }
  let loaderInput: LoaderConfigInput | null = null;
  if (values.loader) loaderInput = readJson(resolve(values.loader)) as LoaderConfigInput;
  else if (positionals[0])
    loaderInput = await loaderFromFlags(isRemoteUrl(positionals[0]) ? positionals[0] : resolve(positionals[0]), values);
  if (loaderInput) {
    const r = parseLoaderConfig(loaderInput);
    if (!r.ok) throw new UsageError(`invalid loader config:\n  ${r.errors.join('\n  ')}`);
    parts.push(await loaderExport(r.value, r.value.file));
    docs.loader = r.value;
  }
  if (parts.length === 0) throw new UsageError('nothing to export: give --build, --loader or a .beton FILE');
  const text = format === 'python' ? joinCode(parts) : JSON.stringify(docs, null, 2) + '\n';
  if (values.output) writeFileSync(values.output, text);
  else process.stdout.write(text);
  return 0;
}

async function loaderFromFlags(file: string, v: Record<string, string | boolean | undefined>): Promise<LoaderConfigInput> {
  const reader = await Reader.open(file);
  try {
    const dec = String(v.decoder ?? 'rrc:160');
    const m = /^(simple|rrc|center)(?::(\d+))?$/.exec(dec);
    if (!m || (m[1] !== 'simple' && !m[2])) throw new UsageError(`--decoder expects simple, rrc:SIZE or center:SIZE, got "${dec}"`);
    const size = Number(m[2]);
    const clipDec = String(v['clip-decoder'] ?? 'simple');
    const c = /^(simple|rrc)(?::(\d+))?$/.exec(clipDec);
    if (!c || (c[1] === 'rrc' && !c[2])) throw new UsageError(`--clip-decoder expects simple or rrc:SIZE, got "${clipDec}"`);
    const clipSize = Number(c[2]);
    const flip = v.flip ? { flip: 0.5 } : {};
    // Every field gets its pipeline written out (FFCV's default decoder for the type), so the
    // exported code says what each batch holds.
    // No prototype: a field named `__proto__` or `toString` is an entry like any other (issue 19 item 8).
    const pipelines = Object.create(null) as NonNullable<LoaderConfigInput['pipelines']>;
    for (const { name, field } of reader.fields) {
      if (field.type === 'rgb_image') {
        const decoder =
          m[1] === 'simple'
            ? { decoder: 'simple_rgb' as const }
            : m[1] === 'rrc'
              ? { decoder: 'random_resized_crop' as const, size: [size, size] as [number, number] }
              : { decoder: 'center_crop' as const, size: [size, size] as [number, number] };
        pipelines[name] = [decoder, ...(v.flip ? [{ op: 'random_horizontal_flip' as const }] : []), { op: 'to_chw' as const }];
      } else if (field.type === 'video_clip') {
        pipelines[name] = [
          c[1] === 'simple'
            ? { decoder: 'clip_simple', ...flip }
            : { decoder: 'clip_random_resized_crop', size: [clipSize, clipSize], ...flip },
        ];
      } else if (field.type === 'int') pipelines[name] = [{ decoder: 'int' }];
      else if (field.type === 'float') pipelines[name] = [{ decoder: 'float' }];
      else if (field.type === 'ndarray' || field.type === 'torch_tensor') pipelines[name] = [{ decoder: 'ndarray' }];
      else if (field.type === 'bytes' || field.type === 'json') pipelines[name] = [{ decoder: 'bytes' }];
    }
    const num = (x: unknown): number | undefined => (x === undefined ? undefined : Number(x));
    return {
      file,
      batchSize: num(v['batch-size']) ?? 256,
      ...(v.workers !== undefined ? { numWorkers: num(v.workers) } : {}),
      order: (v.order as 'random' | undefined) ?? 'random',
      osCache: !v['no-os-cache'],
      pipelines,
    };
  } finally {
    reader.close();
  }
}
