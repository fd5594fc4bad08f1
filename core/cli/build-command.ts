import { dirname, resolve } from 'node:path';
import { PAGE_SIZE } from '../api/constants.js';
import { guardBuild, runBuild, type BuildReport } from '../app/build.js';
import { planBuild, resolveFields } from '../app/plan-build.js';
import { BUILD_VALUE_FLAGS, buildValues } from './build-flags.js';
import { flagHelp } from './flags/flag-help.js';
import { goesWith, parseFlags, switchFlag, valueFlag, type FlagTable, type FlagValues } from './flags/flag-table.js';
import { integer, listOf, path, text } from './flags/parsers.js';
import { recordAt } from '../app/record-build.js';
import { OptionsError } from '../format/errors.js';
import { removeOwnTempsSync } from '../writer/temp-files.js';
import { checkShardsFlags, emitShardJobs, shardStatusCommand, SHARDS_FLAGS, SHARDS_HELP } from './build-shards.js';
import { ProgressBar } from './progress.js';
import { abortOnSignals } from './signals.js';
import { UsageError } from './usage-error.js';
import { readRegularText } from '../native/regular-file.js';
import type { RemoteOutputContext } from './remote-output.js';

/** The flags of a build beside the value rows of build-flags.ts, in the help's order. */
const BUILD_OWN_FLAGS = {
  output: valueFlag('FILE', path(), 'output .beton file', 'o'),
  force: switchFlag([
    'replace OUT if it exists (never when OUT is an input: the',
    'source, a file in the source folder or listed by it, --config)',
  ]),
  'schema-only': switchFlag('print the detected build config (JSON) and exit'),
  'image-column': valueFlag('NAME', text('a column name'), 'the column of image paths (image lists)'),
  columns: valueFlag('A,B,...', listOf(text('a field name')), 'keep only these fields of the detected schema'),
  ...BUILD_VALUE_FLAGS,
  config: valueFlag('FILE', path(), 'a build config (docs/build-config.md); flags override it'),
  json: switchFlag('print the build report as JSON'),
  check: switchFlag('run `beton check` on the output right after the build (docs/check.md)'),
  db: valueFlag('PATH', path(), [
    'the runs database the build is recorded in (default $BETON_DB',
    'or the per-user file; beton runs builds lists them)',
  ]),
  advise: switchFlag([
    'encode a seeded sample of SOURCE with these settings and print',
    'the expected file size and build time, a page size for small',
    'datasets, JPEG sizes per quality; writes nothing (docs/build-advice.md)',
  ]),
  // The same bounds as the contract's builds.advise, so the CLI never advises on an input the app would refuse.
  crop: goesWith(
    valueFlag('N', integer({ min: 8, max: 8192 }), "with --advise: the loader's crop size (warns if images are smaller)"),
    'advise',
  ),
  sample: goesWith(valueFlag('N', integer({ min: 1, max: 256 }), 'with --advise: source items to encode (default 24)'), 'advise'),
} satisfies FlagTable;

/** Every flag of `beton build`: its own, the value rows, the sharded builds'. */
export const BUILD_FLAGS = { ...BUILD_OWN_FLAGS, ...SHARDS_FLAGS } satisfies FlagTable;

export const BUILD_HELP = `beton build SOURCE -o OUT.beton [options]
beton build --config build.json
beton build SOURCE --schema-only > build.json     (edit, then --config build.json)
beton build SOURCE -o OUT.beton --shards N --emit slurm|k8s    (jobs for a cluster)
beton build --status DIR                           (progress of a sharded build)
beton build SOURCE [-o OUT.beton] [options] --advise [--crop N]   (estimates, writes nothing)

Builds a .beton file. SOURCE is picked by its path (docs/sources.md):
  a folder of class folders     an ImageFolder (root/<class>/<image>, labels as torchvision)
  .csv .tsv .parquet .jsonl     a table, or an image list when a column holds image paths
                                (--image-column NAME names it)
  .npy .npz                     a table of arrays (one column per array)
  .tar shards, a pattern ('shards/train-{000..041}.tar'), a folder of shards or a .txt list
                                WebDataset shards
  with --clip-length            a folder of videos (root/<class>/<video>, as UCF101) or a
                                CSV/JSONL video list (path,label[,start,end]), cut into clips
                                with ffmpeg (docs/video.md)
  --config build.json           a build config (docs/build-config.md)
${flagHelp(BUILD_OWN_FLAGS, 31)}

${SHARDS_HELP}`;

export async function buildCommand(argv: string[], remote?: RemoteOutputContext): Promise<number> {
  const { values, positionals } = parseFlags(argv, BUILD_FLAGS);
  if (values.status !== undefined) {
    if (positionals.length || values.output || values.config) throw new UsageError('--status DIR takes no SOURCE, -o or --config');
    return shardStatusCommand(values.status, values);
  }
  const emit = checkShardsFlags(values, values.shard);
  // From here on a signal stops the build through its failure path (the writer removes its
  // temporary file) and exits 128 + n; the sync cleanup is for a build that does not stop.
  let outputFile: string | null = null;
  const signals = abortOnSignals({
    what: 'the build',
    outcome: 'no output was written (the temporary file was removed)',
    cleanupSync: () => outputFile !== null && removeOwnTempsSync(outputFile),
  });
  try {
    return await build(values, positionals, emit, signals.signal, (f) => (outputFile = f), remote);
  } finally {
    signals.dispose();
  }
}

type BuildValues = FlagValues<typeof BUILD_FLAGS>;

async function build(
  values: BuildValues,
  positionals: string[],
  emit: boolean,
  signal: AbortSignal,
  setOutput: (file: string) => void,
  remote: RemoteOutputContext | undefined,
): Promise<number> {
  let config: Record<string, unknown> = {};
  let baseDir = process.cwd();
  if (values.config) {
    const file = resolve(values.config);
    try {
      config = JSON.parse(readRegularText(file, 'build config')) as Record<string, unknown>;
    } catch (e) {
      throw new UsageError(`cannot read build config ${file}: ${(e as Error).message}`);
    }
    baseDir = dirname(file);
  }
  if (positionals.length > 1) throw new UsageError(`expected one SOURCE, got ${positionals.length}`);
  if (!positionals[0] && !config.source) throw new UsageError('missing SOURCE (an image folder or a table file) or --config');
  const given = buildValues(values);
  Object.assign(config, given.config);
  // --schema-only and --advise write nothing: a placeholder output keeps the config valid.
  const output = values.output
    ? resolve(values.output)
    : values['schema-only'] || values.advise
      ? (config.output ?? 'out.beton')
      : undefined;
  if (output === undefined && !config.output) throw new UsageError('missing -o OUT.beton');

  // The rules (detection, video clipping, image options, validation) are core/app's: the same as the app's.
  const plan = await asUsage(() =>
    planBuild({
      config,
      ...(positionals[0] ? { sourcePath: resolve(positionals[0]) } : {}),
      ...(values['image-column'] !== undefined ? { imageColumn: values['image-column'] } : {}),
      clip: given.clip,
      image: given.image,
      ...(typeof output === 'string' ? { output } : {}),
      baseDir,
    }),
  );
  const inputs = values.config ? [resolve(values.config)] : [];
  // Before any work (schema detection, workers): an output that would destroy an input, or
  // an existing file without --force. --schema-only, --advise and --emit write no .beton now.
  const writes = !values['schema-only'] && !emit && !values.advise;
  const guard = writes ? await guardBuild(plan.config, baseDir, { overwrite: values.force ?? false, inputs, source: plan.source }) : null;
  if (guard) setOutput(guard.output);
  const columns = values.columns?.filter(Boolean);
  const needsFields = values['schema-only'] || columns !== undefined || plan.clipFrames !== null || emit;
  const cfg = needsFields ? await asUsage(() => resolveFields(plan, columns ? { columns } : {})) : plan.config;
  if (values['schema-only']) {
    const { image: _image, ...rest } = cfg;
    process.stdout.write(JSON.stringify(rest, null, 2) + '\n');
    return 0;
  }
  // Every shard gets the fields detected here, so no shard can detect another schema.
  if (emit) return emitShardJobs(cfg, baseDir, values);
  if (values.advise) {
    const { adviseBuild } = await import('../app/build-advice.js');
    const { formatAdvice } = await import('./advice-format.js');
    const advice = await adviseBuild(cfg, {
      baseDir,
      loaderSize: values.crop ?? null,
      sample: values.sample ?? 24,
      previewItems: 2,
      source: plan.source,
    });
    if (values.json)
      process.stdout.write(
        JSON.stringify(
          {
            ...advice,
            quality: advice.quality && {
              ...advice.quality,
              items: advice.quality.items.map((i) => ({ ...i, variants: i.variants.map(({ preview: _p, ...v }) => v) })),
            },
          },
          null,
          2,
        ) + '\n',
      );
    else process.stdout.write(formatAdvice(advice));
    return 0;
  }
  const bar = new ProgressBar('build');
  // -o s3://…: the upload starts now, and the pages stream into it as they are written.
  const stream = remote ? await remote.openStream() : undefined;
  const { report, recordNote } = await runBuild(cfg, guard!, {
    signal,
    ...(stream ? { stream } : {}),
    onProgress: (p) => bar.update({ done: p.done, total: p.total, rate: p.samplesPerSec, etaMs: p.etaMs, skipped: p.skipped }),
    // Recorded like the app's builds (beton runs builds); a database problem is a note, not a failure.
    record: recordAt(values.db),
  });
  bar.update({ done: report.numSamples, total: report.numSamples, rate: report.samplesPerSec, etaMs: 0 }, true);
  bar.done();
  if (recordNote) process.stderr.write(`beton build: ${recordNote}\n`);
  if (values.json) process.stdout.write(JSON.stringify(report, null, 2) + '\n');
  else process.stdout.write(formatReport(report));
  if (values.check) {
    const { runCheck, formatCheck } = await import('./check-command.js');
    const check = await runCheck(report.path);
    if (!values.json) process.stdout.write(formatCheck(check));
  }
  return 0;
}

/** The app layer's refusals of options are the CLI's usage errors (exit 2), with the same words. */
async function asUsage<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof OptionsError) throw new UsageError(e.message);
    throw e;
  }
}

const size = (b: number): string =>
  b >= 1 << 20 ? `${(b / (1 << 20)).toFixed(1)} MiB` : b >= 1024 ? `${(b / 1024).toFixed(1)} KiB` : `${b} B`;

/** The human summary of a build (the JSON report carries the same and more). */
export function formatReport(r: BuildReport): string {
  const lines = [
    `wrote ${r.path}`,
    `  ${r.numSamples} samples written, ${r.skipped.length} skipped (of ${r.source.items} from ${r.source.kind} ${r.source.path})`,
    `  ${size(r.fileSize)} in ${r.pages} pages of ${size(r.pageSize)}${sizeVsSources(r)}`,
    `  ${(r.elapsedMs / 1000).toFixed(2)} s, ${r.samplesPerSec.toFixed(1)} samples/s`,
    `  bytes per field: ${Object.entries(r.heapBytes)
      .map(([f, b]) => `${f} ${size(b)}`)
      .join(', ')}`,
    ...Object.entries(r.imageModes).map(([f, m]) => `  ${f}: ${m.raw} raw, ${m.jpg} jpg (${m.passThrough} passed through unchanged)`),
  ];
  if (r.reportPath) lines.push(`  skipped samples are listed in ${r.reportPath}`);
  if (r.manifestPath) lines.push(`  class names, build config and this report: ${r.manifestPath}`);
  const padding = paddingNote(r);
  if (padding) lines.push(padding);
  return lines.join('\n') + '\n';
}

/**
 * The output against its sources, said from the output's side ("2.2x the size of its 12 MiB
 * of source files"): the report used to print the inverse ratio as "sources 0.45x the
 * output", which read backwards (issue 30).
 */
function sizeVsSources(r: Pick<BuildReport, 'fileSize' | 'sourceBytes' | 'compressionRatio'>): string {
  if (!r.compressionRatio || !r.sourceBytes) return '';
  const x = r.fileSize / r.sourceBytes;
  const times = x >= 10 ? x.toFixed(0) : x >= 0.1 ? x.toFixed(2) : x.toPrecision(2);
  return `; ${times}x the size of its ${size(r.sourceBytes)} of source files`;
}

/** FFCV's writer accepts no smaller page. */
const MIN_PAGE = PAGE_SIZE.minWriter;

/**
 * A small dataset in big pages is mostly padding (the header region and the last page are
 * written whole): say so, and the flag that fixes it, when smaller pages would at least halve it.
 */
export function paddingNote(r: Pick<BuildReport, 'fileSize' | 'pageSize' | 'heapBytes'>): string | null {
  if (r.pageSize <= MIN_PAGE) return null;
  const data = Object.values(r.heapBytes).reduce((a, b) => a + b, 0);
  // The header region's page plus the data pages, filled to ~90% (a sample never straddles two).
  const smaller = MIN_PAGE * (1 + Math.max(1, Math.ceil(data / (0.9 * MIN_PAGE))));
  if (smaller * 2 > r.fileSize) return null;
  return (
    `  the file is mostly padding: ${size(data)} of data in whole ${size(r.pageSize)} pages; ` +
    `--page-size ${MIN_PAGE} (2 MiB, the smallest FFCV's writer accepts) makes it about ${size(smaller)}`
  );
}
