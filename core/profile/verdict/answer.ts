/**
 * The answer (issue 27): one pure function from a run — a loader sweep over any engines, one
 * training command, or a training-command sweep — to the ProfileAnswer every surface shows
 * unchanged. It is computed once, when the run is recorded, so the status line, the verdict
 * card, the table's highlight, `beton profile`, `beton runs show` and the service's record
 * all quote the same best point and the same numbers. docs/profiler.md, "The answer".
 */
import type { Bottleneck, EngineBest, ProfileAnswer } from '../../api/profile-answer.js';
import type { ExecPlan, EngineName, PointResult, ProfilePlan, ProfileRun, TelemetrySample, VerdictKind } from '../../api/profile-model.js';
import { ENGINE_LABELS, ENGINE_NAMES } from '../../api/profile-plan.js';
import { execActions, sweepActions, type ActionContext } from './answer-actions.js';
import { spreadOf } from '../engines/engine-points.js';
import { EXEC_THRESHOLDS } from './exec-verdict.js';
import * as f from './verdict-format.js';
import { bestPoint, measurePoint } from './verdict-measure.js';
import { factsOf, ruleFor } from './verdict-rules.js';
import { diagnose } from './verdict.js';
import { THRESHOLDS } from './verdict-thresholds.js';

export type AnswerInput = Pick<ProfileRun, 'kind' | 'plan' | 'points' | 'samples' | 'machine' | 'dataset' | 'verdict'> &
  Partial<Pick<ProfileRun, 'engineFailures' | 'status'>>;

const engineOf = (p: PointResult): EngineName => p.config.engine ?? 'beton';
const mean = (xs: readonly number[]): number | null => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
export const isExecPlan = (p: ProfilePlan | ExecPlan): p is ExecPlan => 'command' in p;

/** Other processes' CPU while measuring: the machine's mean busy fraction minus our process tree's (sweeps: samples during points). */
export function contentionOf(
  samples: readonly TelemetrySample[],
  sweep: boolean,
): { other: number; loader: number; machine: number; contended: boolean } | null {
  const use = samples.filter((s) => typeof s.processCpu === 'number' && s.cpuPerCore.length > 0 && (!sweep || s.point !== null));
  const machine = mean(use.map((s) => mean(s.cpuPerCore)!));
  const loader = mean(use.map((s) => s.processCpu!));
  if (machine === null || loader === null) return null;
  const other = Math.max(0, machine - loader);
  return { other, loader, machine, contended: other > THRESHOLDS.contention };
}

/** Our process cache reads at least this many times the bytes the consumed samples occupy: it re-reads what it evicted. */
export const CACHE_THRASH = 2;

/** "Storage-bound: the process cache …" when the point's process cache re-read pages (OS cache off), else null. */
function cacheThrash(p: PointResult, dataset: AnswerInput['dataset'], plan: ProfilePlan): string | null {
  if (p.config.osCache || p.cacheReadBytes === undefined || !dataset || dataset.numSamples === 0 || p.images === 0) return null;
  const consumed = (p.images * dataset.sizeBytes) / dataset.numSamples;
  const ratio = p.cacheReadBytes / Math.max(1, consumed);
  if (ratio < CACHE_THRASH) return null;
  const cache = plan.processCacheBytes;
  return `Storage-bound: the process cache${cache !== undefined ? ` (${f.bytes(cache)})` : ''} is smaller than what the ${p.config.order} order touches in ${f.bytes(dataset.sizeBytes)}: it read ${ratio.toFixed(1)}× the bytes the samples occupy (${f.bytes(p.cacheReadBytes / p.seconds)}/s) — the loader waits for pages it evicted.`;
}

/** The sweep verdict's kinds as the answer's words; a sweep's "input-bound" (waits, nothing saturated) is a lack of parallelism. */
export function bottleneckOf(kind: VerdictKind, mode: 'sweep' | 'exec'): Bottleneck {
  switch (kind) {
    case 'decode-bound':
      return 'decode';
    case 'disk-bound':
      return 'storage';
    case 'network-bound':
      return 'network';
    case 'input-bound':
      return mode === 'sweep' ? 'parallelism' : 'input';
    case 'gpu-bound':
      return 'gpu';
    case 'compute-bound':
      return 'compute';
    case 'balanced':
      return 'balanced';
    case 'unknown':
      return 'unknown';
  }
}

/** The engine the answer is about: the user's choice, else FFCV when measured, else torch, else ours. */
export function trainedWith(plan: ProfilePlan, points: readonly PointResult[]): EngineName {
  if (plan.trainWith) return plan.trainWith;
  const measured = new Set(points.filter((p) => p.images > 0).map(engineOf));
  return (['ffcv', 'torch', 'beton'] as const).find((e) => measured.has(e)) ?? plan.engines?.[0] ?? 'beton';
}

const contentionWords = (c: { other: number; loader: number }, who = "the loader's own processes"): string =>
  `Other processes used ${f.pct(c.other)} of the CPUs while this ran (${who} ${f.pct(c.loader)}): its numbers understate what it does on a quiet machine.`;

function unknownAnswer(engine: ProfileAnswer['engine'], summary: string, evidence: string[], ctx: ActionContext): ProfileAnswer {
  return {
    engine,
    best: { point: null, images_per_sec: null },
    bottleneck: 'unknown',
    contended: false,
    noise: null,
    summary,
    evidence,
    actions: ctx.mode === 'sweep' ? sweepActions('unknown', ctx) : execActions('unknown', ctx),
    engines: {},
  };
}

/** A loader sweep's answer. */
function sweepAnswer(run: AnswerInput, plan: ProfilePlan): ProfileAnswer {
  const measured = run.points.filter((p) => p.images > 0);
  const engine = trainedWith(plan, measured);
  const mine = measured.filter((p) => engineOf(p) === engine);
  const best = bestPoint(mine);
  const failures = (run.engineFailures ?? []).map(
    (e) => `The ${ENGINE_LABELS[e.engine]} engine failed after ${f.count(e.measured, 'point')}: ${e.message}`,
  );
  const baseCtx: ActionContext = {
    mode: 'sweep',
    plan,
    machine: run.machine,
    dataset: run.dataset,
    best: null,
    points: mine,
    all: measured,
  };
  if (!best) {
    const others = measured.length ? ` (${[...new Set(measured.map(engineOf))].map((e) => ENGINE_LABELS[e]).join(', ')} measured)` : '';
    return unknownAnswer(
      engine,
      `No point of ${ENGINE_LABELS[engine]} was measured${others}: there is no best point to judge.`,
      failures,
      baseCtx,
    );
  }
  const ctx: ActionContext = { ...baseCtx, best };
  const m = measurePoint(best, run.samples, run.machine, run.dataset);
  const x = factsOf(m);
  const rule = ruleFor(x);
  const thrash = cacheThrash(best, run.dataset, plan);
  // The process cache re-reading what it evicted is storage, whatever the CPU does meanwhile (the copies are its cost).
  const underlying = thrash && x.waiting !== false ? 'storage' : bottleneckOf(rule.kind, 'sweep');
  const ruleSummary = thrash && underlying === 'storage' ? thrash : rule.summary(x, m);
  const c = contentionOf(run.samples, true);
  const contended = c?.contended === true;
  const noise = spreadOf(best.slices);

  // Every engine's best, against the trained-with engine's.
  const engines: Partial<Record<EngineName, EngineBest>> = {};
  for (const e of ENGINE_NAMES) {
    if (!(plan.engines ?? ['beton']).includes(e) && !measured.some((p) => engineOf(p) === e)) continue;
    const b = bestPoint(measured.filter((p) => engineOf(p) === e));
    engines[e] = {
      best_images_per_sec: b?.imagesPerSec ?? null,
      vs_trained_with: b && best.imagesPerSec > 0 ? b.imagesPerSec / best.imagesPerSec : null,
    };
  }
  const band = Math.max(noise ?? 0, 0.05);
  const comparisons: string[] = [];
  for (const e of ENGINE_NAMES) {
    const eb = engines[e];
    if (e === engine || !eb || eb.best_images_per_sec === null || eb.vs_trained_with === null) continue;
    const within = Math.abs(eb.vs_trained_with - 1) <= band;
    comparisons.push(
      `${ENGINE_LABELS[e]}'s best is ${f.ips(eb.best_images_per_sec)}, ${within ? `within the noise (±${f.pct(band)}) of` : `${eb.vs_trained_with.toFixed(2)}×`} ${ENGINE_LABELS[engine]}'s ${f.ips(best.imagesPerSec)}.`,
    );
  }

  const word = contended ? 'contention' : underlying;
  const head = `${ENGINE_LABELS[engine][0]!.toUpperCase()}${ENGINE_LABELS[engine].slice(1)}'s best is ${f.ips(best.imagesPerSec)} (point #${best.index + 1}: ${f.config(best.config)}${noise !== null ? `, ±${f.pct(noise / 2)} noise` : ''}).`;
  const summary = contended
    ? `${head} ${contentionWords(c)} Without it the rules say ${underlying}: ${ruleSummary}`
    : `${head} ${ruleSummary}`;
  const verdictEvidence = diagnose(mine, run.samples, run.machine, {
    pointsInRun: run.points.length,
    dataset: run.dataset,
    ...(plan.batchesAhead !== undefined ? { batchesAhead: plan.batchesAhead } : {}),
  }).evidence;
  const evidence = [
    ...(c
      ? [
          `CPU: the machine ${f.pct(c.machine)} busy, the loader's processes ${f.pct(c.loader)}, other processes ${f.pct(c.other)} (contention above ${f.pct(THRESHOLDS.contention)}).`,
        ]
      : []),
    ...verdictEvidence,
    ...comparisons,
    ...failures,
  ];
  return {
    engine,
    best: { point: best.index, images_per_sec: best.imagesPerSec },
    bottleneck: word,
    contended,
    noise,
    summary,
    evidence,
    actions: sweepActions(underlying, { ...ctx, contended, engines, noise }),
    engines,
  };
}

/** The wait-share band of an exec measurement (the probe's step lines). */
function execBand(waitShare: number, gpuUtil: number | null): Bottleneck {
  if (waitShare > EXEC_THRESHOLDS.inputBound) return 'input';
  if (waitShare < EXEC_THRESHOLDS.computeBound) return gpuUtil !== null && gpuUtil > EXEC_THRESHOLDS.gpuBusy ? 'gpu' : 'compute';
  return 'balanced';
}

/** One training command's answer: the probe's wait share (or the outside view), and contention from the samples. */
function execAnswer(run: AnswerInput, plan: ExecPlan): ProfileAnswer {
  const ctx: ActionContext = { mode: 'exec', plan, machine: run.machine, dataset: run.dataset, best: null, points: [], all: [] };
  const v = run.verdict;
  const m = v?.exec ?? null;
  if (!v || !m) return unknownAnswer('exec', 'The command reported nothing to judge (no images, no steps).', [], ctx);
  const gpu = mean(run.samples.flatMap((s) => (s.gpus.length ? [mean(s.gpus.map((g) => g.utilPercent))!] : [])));
  const underlying = m.waitShare !== null ? execBand(m.waitShare, gpu) : bottleneckOf(v.kind, 'exec');
  const c = contentionOf(run.samples, false);
  const contended = c?.contended === true;
  const summary = contended
    ? `${contentionWords(c, "the command's processes")} Without it the rules say ${underlying}: ${v.summary}`
    : v.summary;
  return {
    engine: 'exec',
    best: { point: null, images_per_sec: m.imagesPerSec },
    bottleneck: contended ? 'contention' : underlying,
    contended,
    noise: null,
    summary,
    evidence: [
      ...(c
        ? [
            `CPU: the machine ${f.pct(c.machine)} busy, the command's processes ${f.pct(c.loader)}, other processes ${f.pct(c.other)} (contention above ${f.pct(THRESHOLDS.contention)}).`,
          ]
        : []),
      ...v.evidence,
    ],
    actions: execActions(underlying, { ...ctx, contended }),
    engines: {},
  };
}

/** A training-command sweep's answer: the fewest workers whose step waits under 5%, or that none did. */
function execSweepAnswer(run: AnswerInput, plan: ExecPlan): ProfileAnswer {
  const ctx: ActionContext = {
    mode: 'exec',
    plan,
    machine: run.machine,
    dataset: run.dataset,
    best: null,
    points: run.points,
    all: run.points,
  };
  const pts = run.points.filter((p) => p.exec && p.exec.failure === null && (p.exec.waitShare !== null || p.images > 0));
  if (pts.length === 0)
    return unknownAnswer(
      'exec',
      'No grid point of the command ran to a measurement (each exited with an error or reported nothing).',
      run.points.flatMap((p) => (p.exec?.failure ? [`${p.exec.command}: ${p.exec.failure}`] : [])),
      ctx,
    );
  const limit = EXEC_THRESHOLDS.computeBound;
  const keeping = pts
    .filter((p) => p.exec!.waitShare !== null && p.exec!.waitShare < limit)
    .sort((a, b) => a.config.workers - b.config.workers || b.imagesPerSec - a.imagesPerSec);
  const fastest = pts.reduce((a, b) => (b.imagesPerSec > a.imagesPerSec ? b : a));
  const best = keeping[0] ?? fastest;
  const c = contentionOf(run.samples, false);
  const contended = c?.contended === true;
  const share = best.exec!.waitShare;
  const underlying = share !== null ? execBand(share, best.gpuUtilMean) : 'unknown';
  const gpuWords = (p: PointResult): string => (p.gpuUtilMean !== null ? `, GPU ${p.gpuUtilMean.toFixed(0)}%` : '');
  const row = (p: PointResult): string =>
    `${f.count(p.config.workers, 'worker')}, batch ${p.config.batchSize}: ${f.ips(p.imagesPerSec)}, waiting ${p.exec!.waitShare !== null ? f.pct(Math.min(1, p.exec!.waitShare)) : '?'} of each step${gpuWords(p)}.`;
  const head = keeping[0]
    ? `${f.count(best.config.workers, 'worker')} ${best.config.workers === 1 ? 'is' : 'are'} the fewest that keep the training step's wait for data under ${f.pct(limit)} (${f.pct(share ?? 0)}): ${f.ips(best.imagesPerSec)}.`
    : `No worker count kept the step's wait for data under ${f.pct(limit)}: the fastest point, ${f.count(best.config.workers, 'worker')}, waits ${share !== null ? f.pct(Math.min(1, share)) : 'an unknown share'} of each step at ${f.ips(best.imagesPerSec)}.`;
  return {
    engine: 'exec',
    best: { point: best.index, images_per_sec: best.imagesPerSec },
    bottleneck: contended ? 'contention' : underlying,
    contended,
    noise: spreadOf(best.slices),
    summary: contended ? `${head} ${contentionWords(c, "the command's processes")} Without it the rules say ${underlying}.` : head,
    evidence: [
      ...(c
        ? [`CPU: the machine ${f.pct(c.machine)} busy, the command's processes ${f.pct(c.loader)}, other processes ${f.pct(c.other)}.`]
        : []),
      ...run.points.map((p) => (p.exec?.failure ? `${f.count(p.config.workers, 'worker')}: ${p.exec.failure}.` : row(p))),
    ],
    actions: execActions(underlying, { ...ctx, best, contended, keeps: keeping[0] !== undefined }),
    engines: {},
  };
}

/** The answer of a run: a loader sweep, a training command, or a sweep of one. Pure. */
export function answerOf(run: AnswerInput): ProfileAnswer {
  if (isExecPlan(run.plan)) return run.points.length > 0 ? execSweepAnswer(run, run.plan) : execAnswer(run, run.plan);
  return sweepAnswer(run, run.plan);
}
