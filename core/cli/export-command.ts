import { writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { parseBuildConfig } from '../api/build-config.js';
import { parseLoaderConfig, type LoaderConfigInput } from '../api/loader-config.js';
import { buildExport, joinCode, loaderExport } from '../app/export-code.js';
import { loaderFromFile, loaderFromRun, PipelineSpecError, PROFILE_PIPELINE, type PipelineSpec } from '../app/export-loader.js';
import { isRemoteUrl } from '../remote/url.js';
import { UsageError } from './usage-error.js';
import { readRegularText } from '../app/user-files.js';

export const EXPORT_HELP = `beton export --build build.json [--format python|json] [-o FILE]
beton export --loader loader.json [--format python|json] [-o FILE]
beton export FILE.beton [--batch-size B] [--workers N] [--order sequential|random|quasi_random]
             [--decoder simple|rrc:SIZE|center:SIZE] [--clip-decoder simple|rrc:SIZE] [--no-flip]
             [--no-os-cache] [--format python|json] [-o FILE]
beton export --run ID|last [--point N] [--db PATH] [--format python|json] [-o FILE]

Turns a build config into the Python FFCV DatasetWriter code that builds the same file
(run the script to build; it keeps an existing file unless given --overwrite), and a loader
config, flags for a .beton file, or a profile run into the Python FFCV Loader code that
loads it the same way.
FILE.beton: the pipeline beton profile measures by default: --decoder rrc:160 for image
fields, --clip-decoder simple (whole frames) for video clips, and a random horizontal flip
(--no-flip to leave it out); the batch is 256, or the file's sample count when smaller
(FFCV drops the last partial batch: a larger one would yield nothing).
--run: the settings of a recorded profile sweep (beton runs list): its fastest point, or
--point N as beton runs show numbers them; the code names the run and the point.
--format json prints the validated config (defaults filled in).`;

function readJson(file: string): unknown {
  try {
    return JSON.parse(readRegularText(file, 'config'));
  } catch (e) {
    throw new UsageError(`cannot read ${file}: ${(e as Error).message}`);
  }
}

const LOADER_FLAGS = ['batch-size', 'workers', 'order', 'decoder', 'clip-decoder', 'flip', 'no-flip', 'no-os-cache'] as const;

function positiveInt(s: string | undefined, flag: string): number | undefined {
  if (s === undefined) return undefined;
  const n = Number(s);
  if (!/^\d+$/.test(s) || !Number.isSafeInteger(n) || n < 1) throw new UsageError(`${flag} expects a positive integer, got "${s}"`);
  return n;
}

export async function exportCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      build: { type: 'string' },
      loader: { type: 'string' },
      run: { type: 'string' },
      point: { type: 'string' },
      db: { type: 'string' },
      format: { type: 'string', default: 'python' },
      output: { type: 'string', short: 'o' },
      'batch-size': { type: 'string' },
      workers: { type: 'string' },
      order: { type: 'string' },
      decoder: { type: 'string' },
      'clip-decoder': { type: 'string' },
      flip: { type: 'boolean' },
      'no-flip': { type: 'boolean' },
      'no-os-cache': { type: 'boolean' },
    },
  });
  const format = values.format;
  if (format !== 'python' && format !== 'json') throw new UsageError(`--format expects python or json, got "${format}"`);
  const sources = [values.loader !== undefined, values.run !== undefined, positionals.length > 0].filter(Boolean).length;
  if (sources > 1) throw new UsageError('give one loader: --loader FILE, --run ID or a .beton FILE');
  if (positionals.length > 1) throw new UsageError(`one .beton FILE at a time, got ${positionals.length}`);
  if (values.point !== undefined && values.run === undefined) throw new UsageError('--point goes with --run ID');
  if (values.db !== undefined && values.run === undefined) throw new UsageError('--db goes with --run ID');
  if (values.flip && values['no-flip']) throw new UsageError('--flip and --no-flip contradict each other');
  const given = LOADER_FLAGS.filter((f) => values[f] !== undefined);
  if (values.run !== undefined && given.length)
    throw new UsageError(`--run exports the run's own settings; --${given[0]} is for a .beton FILE (beton export FILE --${given[0]} …)`);
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
  let origin: string | undefined;
  if (values.loader) loaderInput = readJson(resolve(values.loader)) as LoaderConfigInput;
  else if (values.run !== undefined) {
    const fromRun = await runLoader(values.run, positiveInt(values.point, '--point'), values.db);
    loaderInput = fromRun.config;
    origin = fromRun.origin;
  } else if (positionals[0]) {
    const file = isRemoteUrl(positionals[0]) ? positionals[0] : resolve(positionals[0]);
    const spec: PipelineSpec = {
      decoder: values.decoder ?? PROFILE_PIPELINE.decoder,
      clipDecoder: values['clip-decoder'] ?? PROFILE_PIPELINE.clipDecoder,
      flip: !values['no-flip'],
    };
    try {
      loaderInput = await loaderFromFile(
        file,
        {
          batchSize: positiveInt(values['batch-size'], '--batch-size'),
          workers: values.workers === undefined ? undefined : Number(values.workers),
          order: values.order as LoaderConfigInput['order'],
          osCache: !values['no-os-cache'],
          spec,
        },
        // As beton profile: stderr, so that the code on stdout stays runnable.
        (message) => process.stderr.write(`beton export: ${message}\n`),
      );
    } catch (e) {
      if (e instanceof PipelineSpecError) throw new UsageError(e.message);
      throw e;
    }
  }
  if (loaderInput) {
    const r = parseLoaderConfig(loaderInput);
    if (!r.ok) throw new UsageError(`invalid loader config:\n  ${r.errors.join('\n  ')}`);
    parts.push(await loaderExport(r.value, r.value.file, origin));
    docs.loader = r.value;
    if (origin) docs.origin = origin;
  }
  if (parts.length === 0) throw new UsageError('nothing to export: give --build, --loader, --run or a .beton FILE');
  const text = format === 'python' ? joinCode(parts) : JSON.stringify(docs, null, 2) + '\n';
  if (values.output) writeFileSync(values.output, text);
  else process.stdout.write(text);
  return 0;
}

/** The loader of a stored run's point: `last` is the newest run in the database. */
async function runLoader(run: string, point: number | undefined, db: string | undefined): Promise<ReturnType<typeof loaderFromRun>> {
  if (db === '') throw new UsageError('--db expects a path');
  if (run !== 'last' && positiveInt(run, '--run') === undefined) throw new UsageError('--run expects a run ID or last');
  const { existsSync } = await import('node:fs');
  const { defaultDbPath, getRun, listRuns, openRunsDb } = await import('../app/runs-queries.js');
  const path = db ?? defaultDbPath();
  // Reading does not create a database that is not there.
  if (!existsSync(path)) throw new UsageError(`no runs database at ${path}: profile a file first (beton profile FILE)`);
  const handle = await openRunsDb(path);
  try {
    // `last`: the newest loader sweep that measured something (a training command's run has no loader settings).
    const id = run === 'last' ? listRuns(handle).find((r) => r.kind === 'sweep' && r.points > 0)?.id : Number(run);
    if (id === undefined) throw new UsageError(`no loader sweep in ${path} yet: profile a file first (beton profile FILE)`);
    return loaderFromRun(getRun(handle, id), id, point);
  } finally {
    handle.close();
  }
}
