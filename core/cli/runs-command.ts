import { printableJson, printableText, printableValues } from '../format/printable.js';
import { existsSync, writeFileSync } from 'node:fs';
import { formatAnswer, formatEngineFailures } from './answer-format.js';
import type { ExecPlan, PointConfig, PointResult, ProfilePlan } from '../api/profile-model.js';
import { spreadOf } from '../profile/engines/engine-points.js';
import { asBetonError } from '../format/errors.js';
import { RunsDbError } from '../runs/errors.js';
import { defaultDbPath } from '../runs/location.js';
import type { BuildRecord, Change, CompareRow, RunComparison, RunSummary, StoredRun } from '../api/runs-model.js';
import type { RunsDb } from '../runs/runs-db.js';
import { compareRuns, deleteRun, getRun, listBuilds, listRuns, openRunsDb, plotRuns } from '../app/runs-queries.js';
import { readValue } from './flags/bad-value.js';
import { flagHelp } from './flags/flag-help.js';
import { parseFlags, switchFlag, valueFlag, type FlagTable } from './flags/flag-table.js';
import { integer, path } from './flags/parsers.js';
import { UsageError } from './usage-error.js';

export const RUNS_FLAGS = {
  db: valueFlag('PATH', path(), 'the runs database (default $BETON_DB, else the per-user file)'),
  json: switchFlag('machine-readable output'),
  limit: valueFlag('N', integer({ min: 1 }), 'list and builds: at most N, newest first'),
  output: valueFlag('FILE', path(), 'plot: the SVG file (- for stdout)', 'o'),
} satisfies FlagTable;

export const RUNS_HELP = `beton runs list [--limit N]            profile runs, newest first
beton runs show ID                     one run: machine, dataset, plan, points, verdict
beton runs compare A B                 images/s of A and B per matching grid point: B faster/slower than A
beton runs plot ID [B] -o chart.svg    SVG charts of a run (of A vs B with two ids); -o - for stdout
beton runs rm ID                       delete a run with its points and samples
beton runs builds [--limit N]          recorded builds, newest first
  common options: [--db PATH] [--json]

The runs database (SQLite, docs/runs-db.md) holds every profile run and build recorded by
beton profile and the app. Default: $BETON_DB, else the per-user data folder
(~/.local/share/beton-studio/runs.sqlite on Linux). --json prints machine-readable output.
A run that does not exist exits 1.

${flagHelp(RUNS_FLAGS)}`;

const SUBCOMMANDS = ['list', 'show', 'compare', 'plot', 'rm', 'builds'] as const;
type Sub = (typeof SUBCOMMANDS)[number];
const ARITY: Record<Sub, readonly number[]> = { list: [0], builds: [0], show: [1], rm: [1], compare: [2], plot: [1, 2] };

/** A run ID (the positional arguments), read as a flag's value is. */
const parseId = (s: string): number => readValue('ID', integer({ min: 1 }), s);

export async function runsCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, RUNS_FLAGS);
  const [sub, ...args] = positionals;
  if (!sub) throw new UsageError(`expected a subcommand: ${SUBCOMMANDS.join(', ')}`);
  if (!(SUBCOMMANDS as readonly string[]).includes(sub))
    throw new UsageError(`unknown subcommand "${sub}"; expected ${SUBCOMMANDS.join(', ')}`);
  const cmd = sub as Sub;
  if (!ARITY[cmd].includes(args.length)) {
    const want = ARITY[cmd].map((n) => (n === 0 ? 'no' : String(n))).join(' or ');
    throw new UsageError(
      `runs ${cmd} takes ${want} run ID${ARITY[cmd].includes(1) && !ARITY[cmd].includes(2) ? '' : 's'}, got ${args.length}`,
    );
  }
  const ids = args.map(parseId);
  const limit = values.limit;
  if (values.limit !== undefined && cmd !== 'list' && cmd !== 'builds') throw new UsageError('--limit applies to list and builds');
  if (values.output !== undefined && cmd !== 'plot') throw new UsageError('-o/--output applies to plot');
  if (cmd === 'plot' && !values.output) throw new UsageError('runs plot needs -o FILE.svg (or -o - for stdout)');
  const path = values.db ?? defaultDbPath();
  const json = values.json ?? false;
  // A run keeps what commands printed (a failed command's stderr, its command line): escape
  // codes in them are shown, never replayed on the terminal (core/format/printable.ts).
  const out = (s: string): void => {
    const safe = json ? printableJson(s) : printableText(s);
    process.stdout.write(safe.endsWith('\n') ? safe : safe + '\n');
  };

  // Reading commands do not create a database that is not there.
  if (!existsSync(path)) {
    if (cmd === 'list' || cmd === 'builds') {
      out(json ? '[]' : `No ${cmd === 'list' ? 'runs' : 'builds'} yet (no database at ${path}).`);
      return 0;
    }
    process.stderr.write(
      `beton runs: run ${ids.join(' / ')} not found: there is no runs database at ${path} (pass --db PATH, or set BETON_DB)\n`,
    );
    return 1;
  }

  // Loaded here, not at the top: the other commands must not need the SQLite addon.
  const { corruptionError, sqliteErrorCode } = await import('../runs/connection.js');
  const fail = (e: unknown): number => dbError(corruptionError(e, path), path, sqliteErrorCode(e));
  let db: RunsDb;
  try {
    // Checked when opened, so every subcommand reports a damaged file alike (CORRUPT), not
    // only those whose queries happen to touch the damaged pages.
    db = await openRunsDb(path);
  } catch (e) {
    return fail(e);
  }
  try {
    switch (cmd) {
      case 'list': {
        const runs = listRuns(db, limit);
        out(json ? JSON.stringify(runs, null, 2) : runs.length ? formatList(runs) : `No runs in ${path}.`);
        return 0;
      }
      case 'builds': {
        const builds = listBuilds(db, limit);
        out(json ? JSON.stringify(builds, null, 2) : builds.length ? formatBuilds(builds) : `No builds in ${path}.`);
        return 0;
      }
      case 'show': {
        const run = getRun(db, ids[0]!);
        out(json ? JSON.stringify(run, null, 2) : formatRun(run));
        return 0;
      }
      case 'compare': {
        const c = compareRuns(db, ids[0]!, ids[1]!);
        // The text is coloured after its stored strings are made printable: our colours stay codes.
        if (json) out(JSON.stringify(c, null, 2));
        else {
          const text = formatCompare(printableValues(c));
          process.stdout.write(text.endsWith('\n') ? text : text + '\n');
        }
        return 0;
      }
      case 'rm': {
        const deleted = deleteRun(db, ids[0]!);
        if (!deleted) throw new RunsDbError('NOT_FOUND', `run ${ids[0]} not found in ${path}`);
        out(json ? JSON.stringify({ deleted: true, id: ids[0] }) : `Deleted run ${ids[0]}.`);
        return 0;
      }
      case 'plot': {
        const svg = plotRuns(db, ids.length === 2 ? [ids[0]!, ids[1]!] : [ids[0]!]);
        const file = values.output!;
        if (file === '-') {
          process.stdout.write(svg);
          return 0;
        }
        writeFileSync(file, svg);
        out(json ? JSON.stringify({ file, bytes: Buffer.byteLength(svg) }) : `Wrote ${file} (${Buffer.byteLength(svg)} bytes).`);
        return 0;
      }
    }
  } catch (e) {
    return fail(e);
  } finally {
    db.close();
  }
}

function dbError(e: unknown, path: string, sqliteCode: string | null): number {
  if (e instanceof RunsDbError && e.code === 'NOT_FOUND') {
    process.stderr.write(`beton runs: ${e.message} (beton runs list shows the runs)\n`);
    return 1;
  }
  if (e instanceof RunsDbError) {
    process.stderr.write(`beton runs: error [${e.code}]: ${e.message}\n${e.hint ? `  ${e.hint}\n` : ''}`);
    return 1;
  }
  if (sqliteCode !== null) {
    const hint = asBetonError(e)?.hint;
    process.stderr.write(`beton runs: error [${sqliteCode}]: ${(e as Error).message} (${path})\n${hint ? `  ${hint}\n` : ''}`);
    return 1;
  }
  // Anything else (a plot file that cannot be written, a bug) goes to main's handler.
  throw e;
}

// ---------- human output ----------

const mib = (b: number): string =>
  b >= 1 << 30
    ? `${(b / (1 << 30)).toFixed(2)} GiB`
    : b >= 1 << 20
      ? `${(b / (1 << 20)).toFixed(1)} MiB`
      : b >= 1024
        ? `${(b / 1024).toFixed(1)} KiB`
        : `${b} B`;
const rate = (n: number | null): string => (n === null ? '-' : n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(1));
const when = (iso: string): string => iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, '');
const cache = (c: PointConfig): string => (c.osCache ? 'os' : 'process');

/** Left-aligned text columns, right-aligned numbers (columns listed in `right`). */
function table(head: string[], rows: string[][], right: ReadonlySet<number> = new Set()): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]): string =>
    r
      .map((c, i) => (right.has(i) ? c.padStart(widths[i]!) : i === r.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(head), ...rows.map(line)].join('\n');
}

function formatList(runs: RunSummary[]): string {
  return table(
    ['ID', 'STARTED', 'KIND', 'STATUS', 'POINTS', 'BEST IMG/S', 'VERDICT', 'HOST', 'DATASET'],
    runs.map((r) => [
      String(r.id),
      when(r.startedAt),
      r.kind,
      r.status,
      r.kind === 'exec' ? '-' : String(r.points), // a command run has no grid points: its img/s is its own
      rate(r.bestImagesPerSec),
      r.verdictKind ?? '-',
      r.hostname,
      r.datasetPath ?? '-',
    ]),
    new Set([0, 4, 5]),
  );
}

function formatBuilds(builds: BuildRecord[]): string {
  return table(
    ['ID', 'CREATED', 'SAMPLES', 'SIZE', 'SAMPLES/S', 'OUTPUT'],
    builds.map((b) => [
      String(b.id),
      when(b.createdAt),
      String(b.report.numSamples),
      mib(b.report.fileSize ?? 0),
      rate(b.report.samplesPerSec ?? null),
      b.report.path,
    ]),
    new Set([0, 2, 3, 4]),
  );
}

function seconds(a: string, b: string | null): string {
  if (!b) return '';
  const s = (Date.parse(b) - Date.parse(a)) / 1000;
  return Number.isFinite(s) ? ` (${s.toFixed(1)} s)` : '';
}

function formatPlan(run: StoredRun): string {
  if (run.kind === 'exec') {
    const p = run.plan as ExecPlan;
    return `command ${JSON.stringify(p.command)}${p.throughputRegex ? `, throughput regex ${JSON.stringify(p.throughputRegex)}` : ', JSON-lines throughput'}${p.file ? `, file ${p.file}` : ''}`;
  }
  const p = run.plan as ProfilePlan;
  return (
    `decoder ${p.decoder}${p.flip ? ' + flip' : ''}, ${p.secondsPerPoint} s per point after ${p.warmupBatches} warm-up batches; ` +
    `workers ${p.workers.join(',')} × batch ${p.batchSizes.join(',')} × ${p.orders.join(',')} × ${p.osCache.map((c) => (c ? 'os cache' : 'process cache')).join(',')}` +
    (p.engines ? `; engines ${p.engines.join(', ')}${p.source ? ` (torch reads ${p.source})` : ''}` : '')
  );
}

function formatRun(run: StoredRun): string {
  const m = run.machine;
  const gpus = m.gpus.length
    ? `; GPUs: ${m.gpus.map((g) => `${g.name} (${(g.memoryTotalMiB / 1024).toFixed(0)} GiB)`).join(', ')}`
    : '; no GPU';
  const d = run.dataset;
  const lines = [
    `Run #${run.id} · ${run.kind} · ${run.status}`,
    `  started   ${when(run.startedAt)}${run.finishedAt ? `, finished ${when(run.finishedAt)}${seconds(run.startedAt, run.finishedAt)}` : ''}`,
    `  machine   ${m.hostname}: ${m.cpuModel}, ${m.cores} cores, ${mib(m.ramBytes)} RAM, ${m.os}, node ${m.node}${gpus}`,
    `  dataset   ${d ? `${d.path}: ${d.numSamples} samples, ${mib(d.sizeBytes)}, fields ${d.schema.map((f) => `${f.name} (${f.type})`).join(', ')}` : '-'}`,
    `  plan      ${formatPlan(run)}`,
  ];
  if (run.failure) {
    lines.push(`  failure   ${run.failure.code ? `[${run.failure.code}] ` : ''}${run.failure.message}`);
    for (const l of run.failure.stderrTail ?? []) lines.push(`    stderr: ${l}`);
  }
  if (run.engineFailures?.length) lines.push(...formatEngineFailures(run.engineFailures, true, '  '));
  if (run.points.length) {
    // The answer's best point is the one starred (older runs without an answer: the fastest).
    const bestIndex = run.answer ? run.answer.best.point : run.points.reduce((a, b) => (b.imagesPerSec > a.imagesPerSec ? b : a)).index;
    const execPoints = run.points.some((p) => p.exec);
    const engines = run.points.some((p) => p.config.engine !== undefined);
    const sliced = run.points.some((p) => spreadOf(p.slices) !== null);
    const cpu = run.points.some((p) => p.loaderCpu != null && p.machineCpu != null);
    const cols: Array<[string, boolean, (p: PointResult) => string]> = [
      // Numbered from 1, as the verdict's "Best point #N" counts them.
      ['#', true, (p) => String(p.index + 1)],
      ...(engines
        ? [['ENGINE', false, (p: PointResult) => p.config.engine ?? 'beton'] as [string, boolean, (p: PointResult) => string]]
        : []),
      ['WORKERS', true, (p) => String(p.config.workers)],
      ['BATCH', true, (p) => String(p.config.batchSize)],
      ['ORDER', false, (p) => p.config.order],
      ['CACHE', false, (p) => cache(p.config)],
      ['IMG/S', true, (p) => rate(p.imagesPerSec) + (p.index === bestIndex ? ' *' : '  ')],
      ...(execPoints
        ? [
            [
              'WAIT SHARE',
              true,
              (p: PointResult) =>
                p.exec?.failure ? 'failed' : p.exec?.waitShare != null ? `${(Math.min(1, p.exec.waitShare) * 100).toFixed(1)}%` : '-',
            ] as [string, boolean, (p: PointResult) => string],
          ]
        : []),
      ...(sliced
        ? [
            [
              'SPREAD',
              true,
              (p: PointResult) => {
                const x = spreadOf(p.slices);
                return x === null ? '-' : `${(x * 100).toFixed(0)}%`;
              },
            ] as [string, boolean, (p: PointResult) => string],
          ]
        : []),
      ['BATCH/S', true, (p) => p.batchesPerSec.toFixed(2)],
      ['WAIT P50', true, (p) => `${p.waitP50Ms.toFixed(1)} ms`],
      ['WAIT P95', true, (p) => `${p.waitP95Ms.toFixed(1)} ms`],
      ...(cpu
        ? [
            [
              'CPU LOADER/ALL',
              true,
              (p: PointResult) =>
                p.loaderCpu == null || p.machineCpu == null
                  ? '-'
                  : `${(p.loaderCpu * 100).toFixed(0)}% / ${(p.machineCpu * 100).toFixed(0)}%`,
            ] as [string, boolean, (p: PointResult) => string],
          ]
        : []),
      ['RSS PEAK', true, (p) => mib(p.rssPeakBytes)],
      ['DISK READ', true, (p) => mib(p.diskReadBytes)],
      ['PAGE CACHE', true, (p) => (p.pageCacheResident === null ? '-' : `${(p.pageCacheResident * 100).toFixed(0)}%`)],
      ['GPU', true, (p) => (p.gpuUtilMean === null ? '-' : `${p.gpuUtilMean.toFixed(0)}%`)],
    ];
    lines.push(
      '',
      indent(
        table(
          cols.map((c) => c[0]),
          run.points.map((p) => cols.map((c) => c[2](p))),
          new Set(cols.flatMap((c, i) => (c[1] ? [i] : []))),
        ),
      ),
      '  (* best)',
    );
    // With an answer, its engines block (ratios to the engine you train with) is the one comparison shown.
    if (engines && !run.answer) lines.push(...engineLines(run.points));
    if (run.points.some((p) => p.stages?.stages.length)) lines.push(...stageLines(run.points));
  } else {
    lines.push(`  points    none${run.kind === 'exec' ? ' (a training command: see its verdict)' : ''}`);
  }
  const last = run.samples[run.samples.length - 1];
  lines.push(`  samples   ${run.samples.length}${last ? ` over ${(last.t / 1000).toFixed(1)} s` : ''}`);
  if (run.answer) {
    lines.push('  answer', ...formatAnswer(run.answer, '    '));
  } else if (run.verdict) {
    lines.push(`  verdict   ${run.verdict.kind}: ${run.verdict.summary}`);
    for (const e of run.verdict.evidence) lines.push(`    evidence: ${e}`);
    for (const a of run.verdict.advice) lines.push(`    advice:   ${a}`);
  } else {
    lines.push('  verdict   -');
  }
  return lines.join('\n');
}

const indent = (s: string): string =>
  s
    .split('\n')
    .map((l) => '  ' + l)
    .join('\n');

/**
 * Colours for a terminal: green where B is faster (better), red where slower. On when stdout
 * is a TTY, unless NO_COLOR is set; FORCE_COLOR (not 0) turns it on for pipes.
 */
function useColour(): boolean {
  if (process.env.FORCE_COLOR !== undefined && process.env.FORCE_COLOR !== '0') return true;
  return process.stdout.isTTY === true && process.env.NO_COLOR === undefined;
}

const TONE = { faster: '\x1b[32m', slower: '\x1b[31m' } as const;

/** `text` in the colour of `direction` (none for about the same or unknown). */
function tone(text: string, direction: Change['direction'], colour: boolean): string {
  return colour && (direction === 'faster' || direction === 'slower') ? `${TONE[direction]}${text}\x1b[0m` : text;
}

/** "3.26× slower": a row's change without the "B is … than A" frame the header gives. */
const short = (r: CompareRow): string =>
  r.direction === 'same'
    ? `about the same (${(r.ratio ?? 1).toFixed(2)}×)`
    : r.direction === null || r.factor === null
      ? '-'
      : `${r.factor.toFixed(2)}× ${r.direction}`;

function formatCompare(c: RunComparison, colour = useColour()): string {
  const head = (label: string, s: RunSummary): string =>
    `  ${label}  run #${s.id}: ${s.kind}, ${s.status}, started ${when(s.startedAt)}, ${s.hostname}, ${s.datasetPath ?? '-'}`;
  const lines = [
    head('A', c.a),
    head('B', c.b),
    `  ${c.sameMachine ? 'same machine' : 'different machines'}; ${c.datasetNote}`,
    `  best point: ${tone(c.best.text, c.best.direction, colour)}`,
    `  matching points: ${tone(c.headline.text, c.headline.direction, colour)}`,
    '',
  ];
  if (c.rows.length) {
    const t = table(
      ['WORKERS', 'BATCH', 'ORDER', 'CACHE', 'A IMG/S', 'B IMG/S', 'B AGAINST A'],
      c.rows.map((r) => [
        String(r.config.workers),
        String(r.config.batchSize),
        r.config.order,
        cache(r.config),
        rate(r.a.imagesPerSec),
        rate(r.b.imagesPerSec),
        short(r),
      ]),
      new Set([0, 1, 4, 5]),
    ).split('\n');
    // Coloured after the layout: escape codes would count as width. The change is the last column.
    const rows = t.slice(1).map((line, i) => {
      const r = c.rows[i]!;
      const text = short(r);
      return line.endsWith(text) ? line.slice(0, line.length - text.length) + tone(text, r.direction, colour) : line;
    });
    lines.push(indent([t[0]!, ...rows].join('\n')));
  } else {
    lines.push('  no grid point in common');
  }
  const cfg = (p: PointConfig): string => `${p.workers}w/b${p.batchSize}/${p.order}/${cache(p)}`;
  if (c.onlyInA.length) lines.push(`  only in A: ${c.onlyInA.map(cfg).join(', ')}`);
  if (c.onlyInB.length) lines.push(`  only in B: ${c.onlyInB.map(cfg).join(', ')}`);
  lines.push(`  verdict A: ${c.verdicts.a ? `${c.verdicts.a.kind}: ${c.verdicts.a.summary}` : '-'}`);
  lines.push(`  verdict B: ${c.verdicts.b ? `${c.verdicts.b.kind}: ${c.verdicts.b.summary}` : '-'}`);
  return lines.join('\n');
}

/** Best point per engine, and each against our loader's best (or the first engine's): how the engines compare on this file. */
function engineLines(points: readonly PointResult[]): string[] {
  const bestOf = new Map<string, PointResult>();
  for (const p of points) {
    const e = p.config.engine ?? 'beton';
    const b = bestOf.get(e);
    if (p.images > 0 && (!b || p.imagesPerSec > b.imagesPerSec)) bestOf.set(e, p);
  }
  const ref = bestOf.get('beton') ?? [...bestOf.values()][0];
  if (!ref) return [];
  const refName = ref.config.engine ?? 'beton';
  const out = ['', '  engines (best point of each)'];
  for (const [e, p] of bestOf) {
    const r = p.imagesPerSec / Math.max(ref.imagesPerSec, 1e-9);
    out.push(
      `    ${e.padEnd(6)} ${rate(p.imagesPerSec).padStart(9)} img/s  #${p.index + 1} (${p.config.workers} worker${p.config.workers === 1 ? '' : 's'}, batch ${p.config.batchSize})${e === refName ? '' : `  ${r.toFixed(2)}× ${refName}`}`,
    );
  }
  return out;
}

const BAR_CHARS = ['█', '▓', '▒', '░', '▞', '▚'];
const BAR_WIDTH = 40;

/** A stacked bar per point: where each image's worker time goes, stage by stage (one scale for every point). */
function stageLines(points: readonly PointResult[]): string[] {
  const total = (p: PointResult): number => (p.stages?.stages ?? []).reduce((a, s) => a + s.msPerImage, 0);
  const max = Math.max(...points.map(total), 1e-9);
  const out = ['', '  stages (ms of worker time per image; timers: measured in our workers, ablation: FFCV pipeline prefixes)'];
  for (const p of points) {
    if (!p.stages?.stages.length) continue;
    let bar = '';
    for (const [i, s] of p.stages.stages.entries())
      bar += BAR_CHARS[i % BAR_CHARS.length]!.repeat(Math.round((s.msPerImage / max) * BAR_WIDTH));
    const parts = p.stages.stages.map((s, i) => `${BAR_CHARS[i % BAR_CHARS.length]} ${s.stage} ${s.msPerImage.toFixed(2)}`).join(' · ');
    out.push(
      `    #${String(p.index + 1).padEnd(3)} ${(p.config.engine ?? 'beton').padEnd(6)} ${bar.padEnd(BAR_WIDTH)}  ${parts} (${p.stages.method})`,
    );
  }
  return out;
}
