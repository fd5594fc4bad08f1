import { cacheAdvice, decodeAdvice, diskAdvice, largerBatch, moreWorkers, stepDown } from './verdict-advice.js';
import * as f from './verdict-format.js';
import { bestPoint, measureExec, measurePoint, type Measures } from './verdict-measure.js';
import { THRESHOLDS as T } from './verdict-thresholds.js';
import type { DatasetInfo, MachineInfo, PointResult, TelemetrySample, Verdict, VerdictKind } from './types.js';

export { THRESHOLDS } from './verdict-thresholds.js';

export interface DiagnoseOptions {
  /** Lets the verdict compare storage reads with the data consumed, and the file with RAM. */
  dataset?: DatasetInfo | null;
}

/** The measurements as sentences; only what is known. */
function evidenceOf(m: Measures): string[] {
  const ev: string[] = [];
  if (m.point) ev.push(`Best point #${m.point.index} (${f.config(m.point.config)}): ${f.ips(m.point.imagesPerSec)} over ${m.point.seconds.toFixed(1)} s.`);
  else if (m.imagesPerSec != null) ev.push(`The command reported ${f.ips(m.imagesPerSec)} on average while it produced images.`);
  else ev.push('The command reported no throughput.');
  if (m.waitP50Ms != null && m.stepMs != null && m.waitFraction != null) {
    ev.push(`The consumer waited ${f.ms(m.waitP50Ms)} per batch (median; p95 ${f.ms(m.waitP95Ms ?? m.waitP50Ms)}) of a ${f.ms(m.stepMs)} step: ${f.pct(m.waitFraction)} of its time.`);
  }
  if (m.workerBusyFraction != null && m.point) ev.push(`Workers were busy ${f.pct(m.workerBusyFraction)} of the time (${m.point.config.workers} workers).`);
  if (m.cpuBusyCores != null && m.cpuMean != null) ev.push(`CPU: ${m.cpuBusyCores.toFixed(1)} of ${m.cores} logical cores busy (${f.pct(m.cpuMean)}).`);
  if (m.diskBytesPerSec != null) {
    const share = m.diskFractionOfData != null ? `, ${f.pct(m.diskFractionOfData)} of the bytes the samples occupy` : '';
    ev.push(`Storage reads: ${f.bytes(m.diskBytesPerSec)}/s (${f.bytes(m.diskBytes ?? 0)} in all${share}).`);
  }
  if (m.pageCacheResident != null) ev.push(`The page cache held ${f.pct(m.pageCacheResident)} of the file at the end of the point.`);
  ev.push(m.gpuUtil != null ? `GPU utilisation: ${m.gpuUtil.toFixed(0)}% (mean over ${m.gpuCount} GPU${m.gpuCount === 1 ? '' : 's'}).` : 'No GPU readings.');
  return ev;
}

/** The fewest workers within 5% of the best, everything else equal: the CPU that can go back to training. */
function fewerWorkers(points: readonly PointResult[], best: PointResult): string | null {
  const row = points.filter((p) => p.images > 0 && p.config.batchSize === best.config.batchSize && p.config.order === best.config.order && p.config.osCache === best.config.osCache);
  const enough = row.filter((p) => p.imagesPerSec >= 0.95 * best.imagesPerSec).sort((a, b) => a.config.workers - b.config.workers)[0];
  if (!enough || enough.config.workers >= best.config.workers) return null;
  return `Fewer workers: ${enough.config.workers} workers already give ${f.ips(enough.imagesPerSec)} (${f.pct(enough.imagesPerSec / best.imagesPerSec)} of the best); the spare cores can go to the training process.`;
}

const compact = (xs: Array<string | null>): string[] => xs.filter((x): x is string => x != null);

/**
 * What limits the data pipeline, from a sweep's points (the best one is diagnosed) or, with no
 * points, from an exec run's samples. Pure; rules and thresholds in docs/profiler.md.
 */
export function diagnose(points: readonly PointResult[], samples: readonly TelemetrySample[], machine: MachineInfo, opts: DiagnoseOptions = {}): Verdict {
  const dataset = opts.dataset ?? null;
  const best = bestPoint(points);
  if (!best && samples.length === 0) {
    return { kind: 'unknown', summary: 'Nothing was measured: no grid point loaded any image and there are no telemetry samples.', evidence: [], advice: ['Run a sweep with at least one point, or an exec run that lasts a few seconds.'] };
  }
  const m = best ? measurePoint(best, samples, machine, dataset) : measureExec(samples, machine);
  const evidence = evidenceOf(m);
  const verdict = (kind: VerdictKind, summary: string, advice: Array<string | null>): Verdict => ({ kind, summary, evidence, advice: compact(advice) });

  const capacity = Math.max(1, Math.min(best?.config.workers ?? m.cores, m.cores));
  const waiting = m.waitP50Ms != null && m.waitFraction != null ? m.waitFraction > T.waitFraction && m.waitP50Ms > T.waitMs : null;
  const cpuSaturated = m.cpuMean != null && m.cpuMean > T.cpuSaturated;
  const gpuIdle = m.gpuUtil != null && m.gpuUtil < T.gpuIdlePercent;
  const gpuBusy = m.gpuUtil != null && m.gpuUtil > T.gpuBusyPercent;
  const workersBusy = m.workerBusyFraction != null && m.workerBusyFraction >= T.workersBusy;
  const cpuWorking = m.cpuBusyCores != null && m.cpuBusyCores >= T.cpuWorking * capacity;
  const cpuLow = m.cpuBusyCores != null && m.cpuBusyCores < T.cpuLow * capacity;
  const diskHeavy = (m.diskBytesPerSec ?? 0) >= T.diskBytesPerSec || (m.diskFractionOfData ?? 0) >= T.diskFractionOfData;
  const cold = m.osCache !== false && m.pageCacheResident != null && m.pageCacheResident < T.coldCache;
  const all = best ? points : [];

  if (gpuBusy && waiting !== true) {
    return verdict('gpu-bound', `GPU-bound: the GPU is ${m.gpuUtil!.toFixed(0)}% busy and the input pipeline keeps up${waiting == null ? '' : ' (the consumer hardly waits)'}; faster loading will not speed this up.`, [
      best ? fewerWorkers(all, best) : null,
      best ? largerBatch(all, best) : null,
      'Speed up the model step instead: mixed precision, channels_last, torch.compile, a larger batch if memory allows.',
    ]);
  }

  if (waiting === true || (cpuSaturated && gpuIdle)) {
    const why = waiting === true ? `the consumer waits ${f.pct(m.waitFraction!)} of each step for data` : `the GPU idles at ${m.gpuUtil!.toFixed(0)}% while the CPUs are ${f.pct(m.cpuMean!)} busy`;
    if (workersBusy && cpuWorking && !diskHeavy) {
      return verdict('decode-bound', `Decode-bound: ${why}, every worker is busy (${f.pct(m.workerBusyFraction!)}) computing and storage is idle — decoding and augmenting each image is the limit.`, [
        best ? moreWorkers(all, best, machine) : null,
        ...decodeAdvice(best, machine),
        best ? largerBatch(all, best) : null,
      ]);
    }
    if ((diskHeavy || cold) && cpuLow) {
      const reads = diskHeavy ? `${f.bytes(m.diskBytesPerSec ?? 0)}/s come from storage` : `only ${f.pct(m.pageCacheResident!)} of the file is in the page cache`;
      return verdict('disk-bound', `Disk-bound: ${why}, while ${reads} and the CPUs are mostly idle — the workers wait for reads.`, [...diskAdvice(all, dataset, machine), best ? moreWorkers(all, best, machine) : null]);
    }
    const jitter = m.waitP50Ms != null && m.waitP95Ms != null && m.waitP95Ms > T.jitter * Math.max(m.waitP50Ms, T.waitMs);
    return verdict('input-bound', `Input-bound: ${why} — the loader cannot keep up, though neither decoding nor storage is saturated.`, [
      best ? moreWorkers(all, best, machine) : `Raise the loader's numWorkers towards the ${machine.cores} logical cores.`,
      best ? largerBatch(all, best) : null,
      jitter ? `Raise batchesAhead: batches arrive unevenly (p95 wait ${f.ms(m.waitP95Ms!)} against a median of ${f.ms(m.waitP50Ms!)}).` : null,
      ...cacheAdvice(all, dataset, machine, !diskHeavy && !cold),
    ]);
  }

  // Exec mode has no wait times: a starving GPU with idle CPUs and busy storage is waiting for reads.
  if (waiting == null && gpuIdle && diskHeavy && cpuLow) {
    return verdict('disk-bound', `Disk-bound: the GPU idles at ${m.gpuUtil!.toFixed(0)}% while ${f.bytes(m.diskBytesPerSec ?? 0)}/s come from storage and the CPUs are mostly idle.`, diskAdvice(all, dataset, machine));
  }
  if (waiting == null && m.gpuUtil == null) {
    return verdict('unknown', 'Unknown: without GPU readings or loader statistics there is no telling what limits the run.', [
      'Run on a machine where nvidia-smi works, or profile the loader itself with a sweep (beton profile FILE).',
    ]);
  }
  const scaling = best ? stepDown(all, best, 'workers') : null;
  const how = waiting === false ? `the consumer hardly waits (${f.pct(m.waitFraction ?? 0)} of a step) and nothing is saturated` : `the GPU is ${m.gpuUtil!.toFixed(0)}% busy, and neither the CPUs nor storage are saturated`;
  return verdict('balanced', `Balanced: ${how}.`, [
    best ? `Keep ${f.config(best.config)}: ${f.ips(best.imagesPerSec)}.` : 'The limit is in the training step itself (Python overhead, synchronisation, small batches): a larger batch or fewer host-device syncs.',
    scaling && scaling.bestIsMax && scaling.gain >= T.scalingGain ? moreWorkers(all, best!, machine) : null,
    best ? largerBatch(all, best) : null,
  ]);
}
