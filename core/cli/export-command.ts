import { writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseBuildConfig } from '../api/build-config.js';
import { parseLoaderConfig, type LoaderConfigInput } from '../api/loader-config.js';
import { buildExport, joinCode, loaderExport } from '../app/export-code.js';
import { loaderFromFile, loaderFromRun, PipelineSpecError, PROFILE_PIPELINE, type PipelineSpec } from '../app/export-loader.js';
import { isRemoteUrl } from '../remote/url.js';
import { flagHelp } from './flags/flag-help.js';
import { defaultedFlag, goesWith, parseFlags, switchFlag, valueFlag, type FlagTable } from './flags/flag-table.js';
import { integer, oneOf, orWord, path } from './flags/parsers.js';
import { clipDecoderValue, decoderValue, orderValue } from './loader-values.js';
import { UsageError } from './usage-error.js';
import { readRegularText } from '../native/regular-file.js';

export const EXPORT_FLAGS = {
  build: valueFlag('FILE', path(), 'a build config: the DatasetWriter code that builds the same file'),
  loader: valueFlag('FILE', path(), 'a loader config: the Loader code'),
  run: valueFlag('ID|last', orWord(integer({ min: 1 }), 'last', 'last' as const), 'a recorded profile sweep (last: the newest)'),
  point: goesWith(
    valueFlag('N', integer({ min: 1 }), 'with --run: the point, as beton runs show numbers them (default: the fastest)'),
    'run',
  ),
  db: goesWith(valueFlag('PATH', path(), 'with --run: the runs database (default $BETON_DB or the per-user file)'), 'run'),
  format: defaultedFlag('python|json', oneOf(['python', 'json'] as const), 'python', 'the code, or the validated config as JSON'),
  output: valueFlag('FILE', path(), 'write to FILE instead of stdout', 'o'),
  'batch-size': valueFlag('B', integer({ min: 1 }), 'FILE.beton: samples per batch (default 256, at most the file)'),
  workers: valueFlag('N', integer({ min: 0 }), "FILE.beton: the loader's workers"),
  order: valueFlag('ORDER', orderValue, `FILE.beton: ${orderValue.expects}`),
  decoder: valueFlag('SPEC', decoderValue, 'FILE.beton: the image decoder (default rrc:160)'),
  'clip-decoder': valueFlag('SPEC', clipDecoderValue, 'FILE.beton: the video clip decoder (default simple)'),
  flip: switchFlag('FILE.beton: a random horizontal flip (the default)'),
  'no-flip': switchFlag('FILE.beton: no flip'),
  'no-os-cache': switchFlag("FILE.beton: the loader's own page cache instead of the OS's"),
} satisfies FlagTable;

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
--format json prints the validated config (defaults filled in).

${flagHelp(EXPORT_FLAGS)}`;

function readJson(file: string): unknown {
  try {
    return JSON.parse(readRegularText(file, 'config'));
  } catch (e) {
    throw new UsageError(`cannot read ${file}: ${(e as Error).message}`);
  }
}

const LOADER_FLAGS = ['batch-size', 'workers', 'order', 'decoder', 'clip-decoder', 'flip', 'no-flip', 'no-os-cache'] as const;

export async function exportCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, EXPORT_FLAGS);
  const format = values.format;
  const sources = [values.loader !== undefined, values.run !== undefined, positionals.length > 0].filter(Boolean).length;
  if (sources > 1) throw new UsageError('give one loader: --loader FILE, --run ID or a .beton FILE');
  if (positionals.length > 1) throw new UsageError(`one .beton FILE at a time, got ${positionals.length}`);
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
    const fromRun = await runLoader(values.run, values.point, values.db);
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
          batchSize: values['batch-size'],
          workers: values.workers,
          order: values.order,
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
async function runLoader(
  run: number | 'last',
  point: number | undefined,
  db: string | undefined,
): Promise<ReturnType<typeof loaderFromRun>> {
  const { defaultDbPath } = await import('../runs/location.js');
  const { existsSync } = await import('node:fs');
  const path = db ?? defaultDbPath();
  // Reading does not create a database that is not there.
  if (!existsSync(path)) throw new UsageError(`no runs database at ${path}: profile a file first (beton profile FILE)`);
  const { getRun, listRuns, openRunsDb } = await import('../app/runs-queries.js');
  const handle = await openRunsDb(path);
  try {
    // `last`: the newest loader sweep that measured something (a training command's run has no loader settings).
    const id = run === 'last' ? listRuns(handle).find((r) => r.kind === 'sweep' && r.points > 0)?.id : run;
    if (id === undefined) throw new UsageError(`no loader sweep in ${path} yet: profile a file first (beton profile FILE)`);
    return loaderFromRun(getRun(handle, id), id, point);
  } finally {
    handle.close();
  }
}
