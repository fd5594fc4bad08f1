import { spreadOf } from '../app/run-display.js';
import { openRunsDb, savingTo } from '../app/runs-queries.js';
import { checkProfile, compileThroughputRegex, runProfile, type ProfileRequest } from '../app/profile-start.js';
import { constants } from 'node:os';
import { abortOnSignals } from './signals.js';
import { UsageError } from './usage-error.js';
import type { PointResult } from '../api/profile-model.js';

import { ENGINE_NAMES } from '../api/profile-plan.js';
import { flagHelp } from './flags/flag-help.js';
import { goesWith, parseFlags, switchFlag, valueFlag, type FlagTable, type FlagValues } from './flags/flag-table.js';
import { duration, integer, listOf, madeBy, oneOf, path, size, text } from './flags/parsers.js';
import { decoderValue, orderValue } from './loader-values.js';
import { formatAnswer } from './answer-format.js';

/** ", spread ±N% over K slices" when the point was sliced. */
function spreadText(p: PointResult): string {
  const s = spreadOf(p.slices);
  return s === null ? '' : `, spread ${(s * 100).toFixed(0)}% over ${p.slices!.length} slices`;
}

/** One measured point, as the CLI prints it while a sweep runs (a training command's point, or the loader's). */
function pointLine(p: PointResult): string {
  if (p.exec) {
    const wait = p.exec.waitShare != null ? `${(Math.min(1, p.exec.waitShare) * 100).toFixed(1)}%` : '?';
    return p.exec.failure
      ? `failed: ${p.exec.failure}`
      : `${p.imagesPerSec.toFixed(0)} img/s, waiting ${wait} of each step${p.gpuUtilMean !== null ? `, GPU ${p.gpuUtilMean.toFixed(0)}%` : ''}`;
  }
  const c = p.config;
  return `${c.engine ? `${c.engine}: ` : ''}workers ${c.workers}, batch ${c.batchSize}, ${c.order}, ${c.osCache ? 'os cache' : 'process cache'}: ${p.imagesPerSec.toFixed(0)} img/s, wait p50 ${p.waitP50Ms.toFixed(1)} ms / p95 ${p.waitP95Ms.toFixed(1)} ms${spreadText(p)}`;
}

const engineValue = oneOf(ENGINE_NAMES);
const counts = listOf(integer({ min: 1 }));

export const PROFILE_FLAGS = {
  workers: valueFlag('N,...', counts, 'worker counts of the grid (default 1, 2, 4 … cores); --exec: {workers}'),
  'batch-sizes': valueFlag('B,...', counts, 'batch sizes of the grid (default 256); --exec: {batch_size}'),
  orders: valueFlag('ORDER,...', listOf(orderValue), `traversal orders of the grid (${orderValue.expects}; default random)`),
  'os-cache': valueFlag('on,off', listOf(oneOf(['on', 'off'] as const)), "the OS page cache (on) or the loader's own (off); default on"),
  decoder: valueFlag('SPEC', decoderValue, 'simple, rrc:SIZE or center:SIZE (default rrc:160)'),
  'no-flip': switchFlag('leave out the random horizontal flip'),
  'fast-decode': switchFlag("JPEG crops at a reduced DCT scale (faster, not FFCV's pixels)"),
  seconds: valueFlag('S', duration(), 'seconds per point (default 3); --exec: at most S per run'),
  'batches-ahead': valueFlag('N', integer({ min: 1 }), 'batches decoded ahead of the consumer (default 3)'),
  engine: valueFlag('ENGINE,...', listOf(engineValue), `the loaders that run the grid: ${engineValue.expects} (default beton)`),
  source: valueFlag('DIR', path(), "the torch engine's folder (the one the file was built from)"),
  python: valueFlag('PATH', path(), 'the interpreter of the ffcv and torch engines (default $BETON_PYTHON, else python3)'),
  'no-stages': switchFlag('measure each point whole, without per-stage costs'),
  'train-with': valueFlag('ENGINE', engineValue, 'the engine the answer picks the best point of'),
  'process-cache': valueFlag('BYTES', size({ min: 0 }), "the loader's own page cache size (with --os-cache off)"),
  exec: valueFlag('COMMAND', text('a command'), 'profile your training command instead of a loader sweep'),
  regex: goesWith(
    valueFlag(
      'REGEX',
      madeBy(
        (t) => (compileThroughputRegex(t), t),
        'a regular expression with a named group (?<images>…) or (?<ips>…)',
        (m) => m.replace(/^--throughput-regex (is )?/, ''),
      ),
      "--exec: where the command's output says its throughput",
    ),
    'exec',
  ),
  db: valueFlag('PATH', path(), 'the runs database the run is stored in (default $BETON_DB or the per-user file)'),
  json: switchFlag('print the stored run as JSON'),
  'no-gpu': switchFlag('sample no GPU (no nvidia-smi)'),
} satisfies FlagTable;

/** The loader sweep the flags ask for (what the service's profiles.start takes as `sweep`). */
function sweepPlan(values: FlagValues<typeof PROFILE_FLAGS>, file: string): Extract<ProfileRequest, { sweep: unknown }>['sweep'] {
  const ahead = values['batches-ahead'];
  const engines = values.engine;
  const trainWith = values['train-with'];
  const processCache = values['process-cache'];
  return {
    file,
    workers: values.workers,
    batchSizes: values['batch-sizes'],
    orders: values.orders,
    osCache: values['os-cache']?.map((s) => s === 'on'),
    decoder: values.decoder,
    flip: !values['no-flip'],
    fastDecode: values['fast-decode'] ?? false,
    secondsPerPoint: values.seconds,
    ...(ahead !== undefined ? { batchesAhead: ahead } : {}),
    ...(engines ? { engines } : {}),
    ...(values.source !== undefined ? { source: values.source } : {}),
    stages: !values['no-stages'],
    ...(trainWith !== undefined ? { trainWith } : {}),
    ...(processCache !== undefined ? { processCacheBytes: processCache } : {}),
  };
}

export const PROFILE_HELP = `beton profile FILE [--workers 1,2] [--batch-sizes 64,256] [--orders random,quasi_random]
              [--os-cache on,off] [--decoder rrc:160] [--no-flip] [--fast-decode] [--seconds S]
              [--batches-ahead N] [--engine beton,ffcv,torch] [--source DIR] [--python PATH]
              [--no-stages] [--train-with ENGINE] [--process-cache BYTES] [--db PATH] [--json] [--no-gpu]
beton profile --exec "python train.py …" [FILE] [--regex REGEX] [--seconds S] [--db PATH] [--json]
beton profile --exec "python train.py --workers {workers} --batch-size {batch_size}" --workers 2,4,8
              [--batch-sizes 256] [--seconds S] [FILE]

Sweeps the loader over a grid (default workers 1, 2, 4 … cores; batch 256; random; os cache)
for S seconds per point (default 3) after a warm-up, sampling CPU per core, memory, disk
reads, page-cache residency and GPU (nvidia-smi) every 250 ms, then prints a verdict:
input-, decode-, disk- or GPU-bound, with the evidence and the knob to turn next. The run
is stored in the runs database (see beton runs). --json prints the stored run.
--exec runs your own training command instead and reads its throughput from JSON lines
it prints ({"step": 10, "images": 2560}) or from --regex with a named group (?<images>…)
or (?<ips>…); see docs/profiler.md. FILE with --exec: the .beton the command reads, recorded
with the run (beton runs compare tells runs of the same data by its content). --fast-decode:
JPEG crops at a reduced DCT scale (faster, not FFCV's pixels; docs/loader.md).
--batches-ahead: batches the loader decodes ahead of the consumer at every point (default 3;
raise it when batches arrive unevenly).
In the command, wrap the loader in the probe (for batch in beton_probe.watch(loader): …; on
PYTHONPATH under --exec, silent elsewhere) and the verdict says whether each training step
waits for data: input-bound, balanced or compute-bound.
Ctrl-C, SIGTERM and SIGHUP stop the run keeping what was measured (marked interrupted) and
exit 130, 143 and 129.
--engine: which loaders run the grid (default beton): beton (ours), ffcv (the real FFCV
Loader, from the code beton export writes, in a Python child), torch (torchvision ImageFolder
+ DataLoader over --source DIR, the folder the file was built from). --python: the
interpreter for ffcv/torch (default $BETON_PYTHON, else python3 on PATH). Each point is
measured in slices (its spread is shown) and, unless --no-stages, split into per-stage costs
(timers in our workers; pipeline-prefix ablation for FFCV).
The answer (printed last, stored with the run, the "answer" key of --json) names the
bottleneck (decode, storage, network, parallelism, input, compute, gpu, contention,
balanced), the best point of the engine you train with (--train-with; default FFCV when
measured, else torch, else ours) and the next steps as commands to run.
A training-command sweep (--exec with {workers} / {batch_size} and --workers / --batch-sizes)
runs the command once per grid point, each for at most --seconds, and names the fewest
workers that keep the step's wait for data under 5%.

${flagHelp(PROFILE_FLAGS)}`;

export async function profileCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, PROFILE_FLAGS);
  const engines = values.engine;
  if (values.exec && (engines || values.source !== undefined || values['train-with'] !== undefined))
    throw new UsageError('--engine, --source and --train-with apply to sweeps, not --exec');
  const trainWith = values['train-with'];
  if (trainWith !== undefined && engines && !engines.includes(trainWith))
    throw new UsageError(`--train-with ${trainWith}: add it to --engine (${engines.join(',')})`);
  if (values.source !== undefined && !engines?.includes('torch'))
    throw new UsageError("--source is the torch engine's folder: add --engine torch");
  if (!values.exec && positionals.length !== 1) throw new UsageError('expected exactly one FILE (or --exec COMMAND)');
  // The run is stored at the end: a database that cannot take it (damaged, newer schema,
  // not a database, unwritable) must fail now, not after a sweep of minutes.
  (await openRunsDb(values.db)).close();

  // SIGINT/SIGTERM/SIGHUP stop the sweep or the command (its whole process group) through the
  // normal path: what was measured is recorded, the run marked interrupted, and the exit code
  // is 128 + the signal's number (130, 143, 129), as build and merge do.
  const signals = abortOnSignals({ what: 'beton profile', outcome: 'the points measured so far are kept, the run marked interrupted' });
  const ac = { signal: signals.signal };
  const log = (s: string): void => {
    if (!values.json) process.stderr.write(s);
  };
  // What the sweep waits for, as it changes: a line each, so no wait is silent.
  // Even with --json (stderr is for people, stdout stays one JSON document), as notes are.
  const onWait = (message: string): void => void process.stderr.write(`  … ${message}\n`);
  const seconds = values.seconds;
  try {
    const runs = await savingTo(values.db);
    // One request, as the service builds it (app/profile-start.ts): a sweep of the loader, or
    // the training command (once, or over a grid when it names workers or batch sizes).
    const request: ProfileRequest = values.exec
      ? {
          exec: {
            command: values.exec,
            throughputRegex: values.regex ?? null,
            file: positionals[0] ?? null,
            ...(values.workers ? { workers: values.workers } : {}),
            ...(values['batch-sizes'] ? { batchSizes: values['batch-sizes'] } : {}),
            ...(seconds !== undefined ? { secondsPerPoint: seconds } : {}),
          },
        }
      : { sweep: sweepPlan(values, positionals[0]!), python: values.python ?? null };
    // Before the sweep: a missing engine is one line, not a failed run in the database.
    await checkProfile(request);
    const r = await runProfile(request, runs, {
      signal: ac.signal,
      gpu: !values['no-gpu'],
      onWait,
      onGpuUnavailable: (why) => log(`(${why})\n`),
      // The training command's own output: on stderr with --json (stdout stays one JSON document).
      ...(values.json ? { stdout: process.stderr } : {}),
      // Even with --json: stderr is for people, stdout stays one JSON document.
      onNote: (m) => process.stderr.write(`note: ${m}\n`),
      onEngineFailed: (f) =>
        process.stderr.write(
          `beton profile: the ${f.engine} engine failed after ${f.measured} point${f.measured === 1 ? '' : 's'}: ${f.message} (the other engines go on; the traceback is kept with the run: beton runs show)\n`,
        ),
      onPoint: (p, done, total) => log(`  [${done}/${total}] ${pointLine(p)}\n`),
      // A failed sweep is a run too: recorded as failed with why, then the error is reported as usual.
      onFailedRecorded: (failedId) =>
        process.stderr.write(`beton profile: the failed sweep is recorded as run ${failedId} (beton runs show it)\n`),
    });
    const { run, runId: id } = r;
    if (r.result) {
      const res = r.result;
      log(
        `command exited with ${res.exitCode ?? res.signal}; ${res.imagesTotal} images in ${res.seconds.toFixed(1)} s (${(res.imagesTotal / Math.max(res.seconds, 1e-9)).toFixed(1)} img/s)\n`,
      );
      if (res.droppedValues)
        log(`${res.droppedValues} reported value(s) dropped: not a number from 0 to 10^15 (NaN, negative, a string, 1e308)\n`);
    }
    if (values.json) {
      process.stdout.write(JSON.stringify({ ...run, id, samples: run.samples.length }) + '\n');
    } else if (run.answer) {
      // The answer, as stored: the same numbers as --json, beton runs show and the app.
      process.stdout.write(
        `\nrun ${id}: ${formatAnswer(run.answer).join('\n')}\n(beton runs show ${id}; beton runs plot ${id} -o run.svg)\n`,
      );
      if (run.failure) process.stdout.write(`run ${id} saved as ${run.status.toUpperCase()}: ${run.failure.message}\n`);
    } else if (run.failure) {
      // The command's stderr went by as it ran; its last lines again, where the verdict would be.
      const tail = run.failure.stderrTail ?? [];
      process.stdout.write(
        `run ${id} saved as FAILED: ${run.failure.message}\n${tail.length ? `last lines of stderr:\n${tail.map((l) => `  ${l}`).join('\n')}\n` : ''}`,
      );
    } else process.stdout.write(`run ${id} saved (${run.status})\n`);
    if (run.failure?.code === 'INTERRUPTED') {
      const sig = (run.failure.signal ?? 'SIGINT') as NodeJS.Signals;
      process.stderr.write(
        `beton profile: stopped by ${sig}; run ${id} is recorded as interrupted with ${run.points.length} point${run.points.length === 1 ? '' : 's'} (beton runs show ${id})\n`,
      );
      return 128 + (constants.signals[sig] ?? 0);
    }
    return run.status === 'failed' ? 1 : 0;
  } finally {
    signals.dispose();
  }
}
