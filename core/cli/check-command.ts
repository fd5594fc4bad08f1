import type { DatasetCheck } from '../api/dataset-check.js';
import { checkDataset } from '../app/check-dataset.js';
import { flagHelp } from './flags/flag-help.js';
import { parseFlags, switchFlag, valueFlag, type FlagTable } from './flags/flag-table.js';
import { integer } from './flags/parsers.js';
import { ProgressBar } from './progress.js';
import { UsageError } from './usage-error.js';

export const CHECK_FLAGS = {
  json: switchFlag('print exactly {"corrupt", "duplicates", "near_duplicates", "outliers", "classes"}'),
  workers: valueFlag('N', integer({ min: 0, max: 256 }), 'decode threads (default: the cores, at most 8; 0: this thread)'),
} satisfies FlagTable;

export const CHECK_HELP = `beton check FILE [--json] [--workers N]

Decodes every sample once (the loader's decoders, in N worker threads) and reports:
corrupt samples, exact duplicates (same decoded pixels; without an image field, the same
stored bytes), near-duplicates (64-bit DCT perceptual hash within 7 bits), outliers (tiny,
extreme aspect ratio, near-uniform) and samples per class. Groups whose labels disagree
come first. The result is kept beside the file (FILE.check.json) for the app (docs/check.md).

${flagHelp(CHECK_FLAGS)}`;

export async function checkCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, CHECK_FLAGS);
  if (positionals.length !== 1) throw new UsageError('expected exactly one FILE');
  const check = await runCheck(positionals[0]!, values.workers);
  if (values.json) process.stdout.write(JSON.stringify(check.result, null, 2) + '\n');
  else process.stdout.write(formatCheck(check));
  return 0;
}

/** Runs the check with a progress bar on stderr (shared with `beton build --check`). */
export async function runCheck(path: string, numWorkers?: number): Promise<DatasetCheck> {
  const bar = new ProgressBar('check');
  const check = await checkDataset(path, {
    ...(numWorkers !== undefined ? { numWorkers } : {}),
    // The same progress the app's check job reports (core/app/check-dataset.ts).
    onProgress: (p) => bar.update({ done: p.done, total: p.total, rate: p.samplesPerSec, etaMs: p.etaMs }),
  });
  bar.update({ done: check.beton.numSamples, total: check.beton.numSamples, rate: check.samplesPerSec, etaMs: 0 }, true);
  bar.done();
  return check;
}

/** What the report left out (core/app/check/analyse.ts caps the groups listed). */
function omittedLines(r: DatasetCheck['result']): string[] {
  const o = r.omitted;
  if (!o) return [];
  const out: string[] = [];
  if (o.duplicateGroups || o.duplicateIds || o.nearDuplicateGroups || o.nearDuplicateIds)
    out.push(
      `  not listed: ${o.duplicateGroups} more duplicate groups and ${o.duplicateIds} ids of large ones; ${o.nearDuplicateGroups} more near-duplicate groups and ${o.nearDuplicateIds} ids of large ones`,
    );
  if (!o.nearSearchComplete)
    out.push('  near-duplicate search stopped at its comparison budget (many look-alike images): some groups may be missing or split');
  return out;
}

/** The human report: counts, then the groups (label disagreements marked), at most 10 lines a kind. */
export function formatCheck(c: DatasetCheck): string {
  const r = c.result;
  const show = 10;
  const more = (n: number): string[] => (n > show ? [`    … ${n - show} more (--json for all)`] : []);
  const lines = [
    `${c.beton.file}: ${c.beton.numSamples} samples checked in ${(c.elapsedMs / 1000).toFixed(1)} s (${c.samplesPerSec} samples/s)`,
    `  corrupt: ${r.corrupt.length}`,
    ...r.corrupt.slice(0, show).map((x) => `    #${x.id}: ${x.error}`),
    ...more(r.corrupt.length),
    `  duplicates: ${r.duplicates.length} groups (${c.labelConflicts.duplicates} with labels that disagree)`,
    ...r.duplicates
      .slice(0, show)
      .map((g, i) => `    ${g.map((id) => `#${id}`).join(' ')}${i < c.labelConflicts.duplicates ? '  LABELS DISAGREE' : ''}`),
    ...more(r.duplicates.length),
    `  near-duplicates (≤ ${c.thresholds.hamming} of 64 hash bits): ${r.near_duplicates.length} groups (${c.labelConflicts.near_duplicates} with labels that disagree)`,
    ...r.near_duplicates
      .slice(0, show)
      .map((g, i) => `    ${g.map((id) => `#${id}`).join(' ')}${i < c.labelConflicts.near_duplicates ? '  LABELS DISAGREE' : ''}`),
    ...more(r.near_duplicates.length),
    ...omittedLines(r),
    `  outliers: ${r.outliers.length}`,
    ...r.outliers.slice(0, show).map((o) => `    #${o.id}: ${o.reason}`),
    ...more(r.outliers.length),
  ];
  const classes = Object.entries(r.classes);
  if (classes.length) {
    lines.push(`  classes (${c.labelField}): ${classes.length}`);
    for (const [name, n] of classes.slice(0, 20)) lines.push(`    ${name.padEnd(20)} ${n}`);
    if (classes.length > 20) lines.push(`    … ${classes.length - 20} more`);
  }
  lines.push(`  kept in ${c.beton.file}.check.json`);
  return lines.join('\n') + '\n';
}
