import { cacheAdvice, decodeAdvice, diskAdvice, largerBatch, moreWorkers, stepDown } from './verdict-advice.js';
import * as f from './verdict-format.js';
import { bestPoint, measureExec, measurePoint, type Measures } from './verdict-measure.js';
import { factsOf, ruleFor, type Facts } from './verdict-rules.js';
import { THRESHOLDS as T } from './verdict-thresholds.js';
import type { DatasetInfo, EngineName, MachineInfo, PointResult, TelemetrySample, Verdict, VerdictKind } from '../../api/profile-model.js';
import { spreadOf } from '../engines/engine-points.js';

export { THRESHOLDS } from './verdict-thresholds.js';
export { RULES, rulesMarkdown } from './verdict-rules.js';

/** The loader's default batchesAhead (core/loader/loader.ts), when a plan does not say. */
const DEFAULT_BATCHES_AHEAD = 3;

export interface DiagnoseOptions {
  /** Lets the verdict compare storage reads with the data consumed, and the file with RAM. */
  dataset?: DatasetInfo | null;
  /** The sweep's batchesAhead (default 3), so advice to raise it can name the next value. */
  batchesAhead?: number;
  /** Points in the whole run, for "Best point #N of M" when only one engine's points are diagnosed (default: those given). */
  pointsInRun?: number;
}

/** The measurements as sentences; only what is known. Numbers formatted as the summary formats them. */
function evidenceOf(m: Measures, pointsMeasured: number): string[] {
  const ev: string[] = [];
  // Points are numbered from 1 for people (their index counts from 0).
  if (m.point)
    ev.push(
      `Best point #${m.point.index + 1} of ${pointsMeasured} (${f.config(m.point.config)}): ${f.ips(m.point.imagesPerSec)} over ${m.point.seconds.toFixed(1)} s.`,
    );
  else if (m.imagesPerSec != null) ev.push(`The command reported ${f.ips(m.imagesPerSec)} on average while it produced images.`);
  else ev.push('The command reported no throughput.');
  if (m.waitP50Ms != null && m.stepMs != null && m.waitFraction != null) {
    ev.push(
      `The consumer waited ${f.ms(m.waitP50Ms)} per batch (median; p95 ${f.ms(m.waitP95Ms ?? m.waitP50Ms)}) of a ${f.ms(m.stepMs)} step: ${f.pct(m.waitFraction)} of its time.`,
    );
  }
  if (m.workerBusyFraction != null && m.point)
    ev.push(`Workers were busy ${f.pct(m.workerBusyFraction)} of the time (${f.count(m.point.config.workers, 'worker')}).`);
  if (m.cpuBusyCores != null && m.cpuMean != null) ev.push(`CPU: ${f.cores(m.cpuBusyCores, m.cores)} (${f.pct(m.cpuMean)}).`);
  if (m.diskBytesPerSec != null) {
    const share = m.diskFractionOfData != null ? `, ${f.pct(m.diskFractionOfData)} of the bytes the samples occupy` : '';
    ev.push(`Storage reads: ${f.bytes(m.diskBytesPerSec)}/s (${f.bytes(m.diskBytes ?? 0)} in all${share}).`);
  }
  if (m.pageCacheResident != null) ev.push(`The page cache held ${f.pct(m.pageCacheResident)} of the file at the end of the point.`);
  if (m.loaderCpu != null && m.machineCpu != null && m.otherCpu != null)
    ev.push(
      `CPU of the loader's processes: ${f.pct(m.loaderCpu)} of all CPUs; the machine: ${f.pct(m.machineCpu)}; other processes: ${f.pct(m.otherCpu)}.`,
    );
  const spread = spreadOf(m.point?.slices);
  if (spread != null && m.point?.slices)
    ev.push(
      `Steadiness: ${m.point.slices.length} slices of ${f.ips(Math.min(...m.point.slices))} to ${f.ips(Math.max(...m.point.slices))} (spread ${f.pct(spread)}).`,
    );
  if (m.source === 'point')
    ev.push(
      m.gpuNotUsed != null
        ? `GPU: not used by this sweep (${m.gpuNotUsed.toFixed(0)}% utilisation from other work; not evidence for a loader setting).`
        : m.gpuCount > 0
          ? 'GPU: not used by this sweep.'
          : 'No GPU readings.',
    );
  else
    ev.push(
      m.gpuUtil != null ? `GPU utilisation: ${m.gpuUtil.toFixed(0)}% (mean over ${f.count(m.gpuCount, 'GPU')}).` : 'No GPU readings.',
    );
  return ev;
}

/** The engine a sweep's verdict is about: FFCV's when it was measured (the loader users train with), else ours, else torch's. */
export function verdictEngine(points: readonly PointResult[]): EngineName | null {
  const measured = new Set(points.filter((p) => p.images > 0).map((p) => p.config.engine ?? 'beton'));
  return (['ffcv', 'beton', 'torch'] as const).find((e) => measured.has(e)) ?? null;
}

/**
 * Under contention the first words are about it: the loader had less CPU than it will
 * have, so its numbers understate it, and a shortage of CPU is not "decode-bound".
 */
function contended(kind: VerdictKind, summary: string, m: Measures): { kind: VerdictKind; summary: string } | null {
  if (m.otherCpu == null || !(m.otherCpu > T.contention)) return null;
  const head = `Other processes used ${f.pct(m.otherCpu)} of the CPUs (the loader ${f.pct(m.loaderCpu ?? 0)}); this measurement understates the loader.`;
  if (kind === 'decode-bound' || kind === 'balanced')
    return {
      kind: kind === 'decode-bound' ? 'input-bound' : kind,
      summary: `${head} The consumer ${m.waitFraction != null ? `waits ${f.pct(m.waitFraction)} of each step` : 'waits'} while the CPUs are shared: profile again on a quieter machine before changing decode settings.`,
    };
  return { kind, summary: `${head} ${summary}` };
}

/** The fewest workers within 5% of the best, everything else equal: the CPU that can go back to training. */
function fewerWorkers(points: readonly PointResult[], best: PointResult): string | null {
  const row = points.filter(
    (p) =>
      p.images > 0 &&
      p.config.batchSize === best.config.batchSize &&
      p.config.order === best.config.order &&
      p.config.osCache === best.config.osCache,
  );
  const enough = row.filter((p) => p.imagesPerSec >= 0.95 * best.imagesPerSec).sort((a, b) => a.config.workers - b.config.workers)[0];
  if (!enough || enough.config.workers >= best.config.workers) return null;
  return `Fewer workers: ${f.count(enough.config.workers, 'worker')} already give ${f.ips(enough.imagesPerSec)} (${f.pct(enough.imagesPerSec / best.imagesPerSec)} of the best); the spare cores can go to the training process.`;
}

/**
 * batchesAhead, named where the user can turn it: the profile form's "Batches ahead",
 * `beton profile --batches-ahead`, and the loader option in their own code.
 */
function batchesAheadAdvice(m: Measures, current: number): string | null {
  if (m.waitP50Ms == null || m.waitP95Ms == null) return null;
  if (!(m.waitP95Ms > T.jitter * Math.max(m.waitP50Ms, 0.001))) return null;
  const next = current * 2;
  return `Raise batches ahead from ${current} to ${next} (Profile → "Batches ahead", beton profile --batches-ahead ${next}; the loader's batchesAhead option): batches arrive unevenly (p95 wait ${f.ms(m.waitP95Ms)} against a median of ${f.ms(m.waitP50Ms)}).`;
}

/** Advice for a verdict, most promising first (null entries are dropped). */
function adviceFor(
  kind: VerdictKind,
  x: Facts,
  m: Measures,
  all: readonly PointResult[],
  best: PointResult | null,
  machine: MachineInfo,
  dataset: DatasetInfo | null,
  batchesAhead: number,
): Array<string | null> {
  switch (kind) {
    case 'compute-bound': // exec runs with the probe only (exec-verdict.ts); no sweep rule gives it
    case 'gpu-bound':
      return [
        best ? fewerWorkers(all, best) : null,
        best ? largerBatch(all, best) : null,
        'Speed up the model step instead: mixed precision, channels_last, torch.compile, a larger batch if memory allows.',
      ];
    case 'decode-bound':
      return [
        // More workers cannot help once every core is busy.
        best && x.cpuSaturated !== true ? moreWorkers(all, best, machine) : null,
        x.cpuSaturated === true && x.workersBusy === false && m.workerBusyFraction != null
          ? `Other processes take CPU time: all ${f.count(m.cores, 'logical core')} were busy while the workers were busy only ${f.pct(m.workerBusyFraction)}; profile on an idle machine, or expect this share of the CPU in training too.`
          : null,
        ...decodeAdvice(best, machine, x.cpuSaturated === true, dataset),
        best ? largerBatch(all, best) : null,
      ];
    case 'network-bound':
      return [
        'Fetch ahead: raise batches ahead (Profile → "Batches ahead", beton profile --batches-ahead) so more ranged GETs are in flight.',
        'Keep pages between epochs: a page pool the size of the file (Loader option remote.poolBytes), or a disk cache (remote.cacheDir), or copy the file once with beton cp (docs/remote.md).',
        'Use the quasi_random order: it reads each page once per epoch.',
      ];
    case 'disk-bound':
      return [...diskAdvice(all, dataset, machine), best ? moreWorkers(all, best, machine) : null];
    case 'input-bound':
      if (x.waiting === null) {
        return [
          `Give the training script's data loader more workers (its num_workers), up to the ${f.count(machine.cores, 'logical core')}, or make its per-sample work cheaper (see decode advice: store raw or smaller images).`,
        ];
      }
      return [
        best ? moreWorkers(all, best, machine) : null,
        best ? largerBatch(all, best) : null,
        batchesAheadAdvice(m, batchesAhead),
        ...cacheAdvice(all, dataset, machine, x.storageBusy !== true && x.cacheCold !== true),
      ];
    case 'unknown':
      return [
        "Run on a machine where nvidia-smi works, or profile the loader itself with a sweep (beton profile FILE, or the Profile screen's loader sweep).",
      ];
    case 'balanced': {
      const scaling = best ? stepDown(all, best, 'workers') : null;
      return [
        best
          ? `Keep ${f.config(best.config)}: ${f.ips(best.imagesPerSec)}.`
          : 'The limit is in the training step itself (Python overhead, synchronisation, small batches): a larger batch or fewer host-device syncs.',
        scaling && scaling.bestIsMax && scaling.gain >= T.scalingGain ? moreWorkers(all, best!, machine) : null,
        best ? largerBatch(all, best) : null,
      ];
    }
  }
}

const compact = (xs: Array<string | null>): string[] => xs.filter((x): x is string => x != null);

/**
 * What limits the data pipeline, from a sweep's points (the best one is diagnosed) or, with no
 * points, from an exec run's samples. Pure; the rules are RULES (verdict-rules.ts), shown in
 * docs/profiler.md.
 */
export function diagnose(
  allPoints: readonly PointResult[],
  samples: readonly TelemetrySample[],
  machine: MachineInfo,
  opts: DiagnoseOptions = {},
): Verdict {
  const dataset = opts.dataset ?? null;
  // Several engines: the verdict and its advice are about one of them, compared within it.
  const engine = verdictEngine(allPoints);
  const points = engine ? allPoints.filter((p) => (p.config.engine ?? 'beton') === engine) : allPoints;

  const best = bestPoint(points);
  if (!best && samples.length === 0) {
    return {
      kind: 'unknown',
      summary: 'Nothing was measured: no grid point loaded any image and there are no telemetry samples.',
      evidence: [],
      advice: ['Run a sweep with at least one point, or an exec run that lasts a few seconds.'],
    };
  }
  const m = best ? measurePoint(best, samples, machine, dataset) : measureExec(samples, machine);
  const x = factsOf(m);
  const rule = ruleFor(x);
  const all = best ? points : [];
  const c = contended(rule.kind, rule.summary(x, m), m);
  const kind = c?.kind ?? rule.kind;
  return {
    kind,
    summary: c?.summary ?? rule.summary(x, m),
    evidence: evidenceOf(m, opts.pointsInRun ?? allPoints.length),
    advice: compact([
      c ? 'Profile again with the machine otherwise idle (stop other jobs), or expect this share of the CPU in training too.' : null,
      ...adviceFor(kind, x, m, all, best, machine, dataset, opts.batchesAhead ?? DEFAULT_BATCHES_AHEAD),
    ]),
  };
}
