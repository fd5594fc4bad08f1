import { resolve } from 'node:path';
import { mergeDatasets, type MergeReport } from '../writer/merge.js';
import { removeOwnTempsSync } from '../writer/temp-files.js';
import { ProgressBar } from './progress.js';
import { abortOnSignals } from './signals.js';
import { openRangeClient } from '../remote/open-client.js';
import { isRemoteUrl } from '../remote/url.js';
import { flagHelp } from './flags/flag-help.js';
import { parseFlags, switchFlag, valueFlag, type FlagTable } from './flags/flag-table.js';
import { path } from './flags/parsers.js';
import { UsageError } from './usage-error.js';
import type { RemoteOutputContext } from './remote-output.js';
import { statSync } from 'node:fs';

export const MERGE_FLAGS = {
  output: valueFlag('FILE', path(), 'the merged .beton file', 'o'),
  force: switchFlag('replace OUT if it exists (it may also be one of the inputs)'),
  json: switchFlag('print the merge report as JSON'),
} satisfies FlagTable;

export const MERGE_HELP = `beton merge A.beton B.beton ... -o OUT.beton [--force] [--json]

Concatenates .beton files built with the same fields (names, types, arguments) and page
size into one, samples in argument order — e.g. the shards of \`beton build --shard k/N\`.
Pages are copied as they are (nothing is decoded or re-encoded); only the pointers in the
metadata and the allocation table are rebased. OUT is written under a temporary name and
renamed when complete: a failed or interrupted merge leaves nothing.
${flagHelp(MERGE_FLAGS)}`;

const MIB = 1 << 20;

export async function mergeCommand(argv: string[], remote?: RemoteOutputContext): Promise<number> {
  const { values, positionals } = parseFlags(argv, MERGE_FLAGS);
  if (positionals.length === 0) throw new UsageError('expected the input files: beton merge A.beton B.beton ... -o OUT.beton');
  if (!values.output) throw new UsageError('missing -o OUT.beton');
  // Progress in MiB: a merge is bytes moved, not samples encoded.
  const bar = new ProgressBar('merge (MiB)');
  // A signal stops the merge through its failure path (the temporary file is removed) and
  // exits 128 + n, as beton build; the sync cleanup is for a merge that does not stop.
  const output = resolve(values.output);
  const signals = abortOnSignals({
    what: 'the merge',
    outcome: 'no output was written (the temporary file was removed)',
    cleanupSync: () => removeOwnTempsSync(output),
  });
  // Remote inputs are read in place with ranged GETs (merge.ts): nothing is staged locally.
  const inputs = { paths: positionals };
  try {
    // -o s3://…: the upload starts now, sized for the inputs' total (the output's size, give or take the head).
    const stream = remote
      ? await remote.openStream((await Promise.all(inputs.paths.map(inputSize))).reduce((s, n) => s + n, 0))
      : undefined;
    const report = await mergeDatasets(inputs.paths, values.output, {
      ...(stream ? { stream } : {}),
      overwrite: values.force ?? false,
      signal: signals.signal,
      // Nothing in the first second: the rate is meaningless until then, and a short merge needs only the final line.
      onProgress: (p) =>
        p.elapsedMs > 1000 &&
        bar.update({
          done: Math.round(p.bytesDone / MIB),
          total: Math.round(p.bytesTotal / MIB),
          rate: p.bytesPerSec / MIB,
          etaMs: p.etaMs,
        }),
    });
    bar.update(
      { done: Math.round(report.bytesCopied / MIB), total: Math.round(report.bytesCopied / MIB), rate: report.bytesPerSec / MIB, etaMs: 0 },
      true,
    );
    bar.done();
    process.stdout.write(values.json ? JSON.stringify(report, null, 2) + '\n' : formatMergeReport(report));
    return 0;
  } catch (e) {
    // Ends the progress line; main prints the error in one line, no stack (Ctrl-C, disk
    // full, a foreign input: none is a bug).
    bar.done();
    throw e;
  } finally {
    signals.dispose();
  }
}

/** An input's size in bytes: a local file's, or a remote object's (one small ranged GET; s3rver answers bytes=0-0 with the whole object). */
async function inputSize(p: string): Promise<number> {
  if (!isRemoteUrl(p)) return statSync(p).size;
  return (await (await openRangeClient(p)).get(0, 64, null)).size;
}

export function formatMergeReport(r: MergeReport): string {
  return (
    [
      `wrote ${r.path}`,
      `  ${r.numSamples} samples from ${r.inputs.length} files, ${r.pages} pages of ${(r.pageSize / MIB).toFixed(1)} MiB, ${(r.fileSize / MIB).toFixed(1)} MiB`,
      `  ${(r.elapsedMs / 1000).toFixed(2)} s, ${(r.bytesPerSec / 1e9).toFixed(2)} GB/s`,
    ].join('\n') + '\n'
  );
}
