import * as f from './verdict-format.js';
import type { Measures } from './verdict-measure.js';
import { THRESHOLDS as T } from './verdict-thresholds.js';
import type { VerdictKind } from '../../api/profile-model.js';

/**
 * The verdict rules as one table: each measure becomes a level (a fact) against exactly one
 * threshold, the rules are conditions on those facts, and every sentence about a measure is
 * written from the same fact and the same number. So a summary cannot call a 90% wait
 * "hardly waiting", or saturated CPUs "not saturated": the words come from the comparison
 * that chose the rule. Pure.
 */

/** The measures as levels; null where the measure is unknown (exec runs have no waits). */
export interface Facts {
  mode: 'sweep' | 'exec';
  /** The consumer waits more than T.waitFraction of its step. */
  waiting: boolean | null;
  /** Mean busy fraction over all logical CPUs above T.cpuSaturated. */
  cpuSaturated: boolean | null;
  /** Busy cores ≥ T.cpuWorking × capacity. */
  cpuWorking: boolean | null;
  /** Busy cores < T.cpuLow × capacity. */
  cpuLow: boolean | null;
  /** Workers busy ≥ T.workersBusy of wall time × workers. */
  workersBusy: boolean | null;
  /** Reads ≥ T.diskBytesPerSec, or ≥ T.diskFractionOfData of the bytes consumed. */
  storageBusy: boolean | null;
  /** Page-cache residency below T.coldCache with the OS cache. */
  cacheCold: boolean | null;
  /** GPU utilisation above T.gpuBusyPercent. */
  gpuBusy: boolean | null;
  /** GPU utilisation below T.gpuIdlePercent. */
  gpuIdle: boolean | null;
  /** A remote file whose bytes flowed during the point (null: a local file). */
  networkFlowing?: boolean | null;
}

const known = <T>(v: T | null | undefined): v is T => v !== null && v !== undefined;

/** Workers × cores the loader could use: min(workers, cores) for a point, all cores for an exec run. */
export function capacityOf(m: Measures): number {
  return Math.max(1, Math.min(m.point?.config.workers ?? m.cores, m.cores));
}

/** The cores the loader itself kept busy: its process tree's when known (other processes' load is not its work), else the machine's. */
function workCores(m: Measures): number | null {
  return m.loaderBusyCores ?? m.cpuBusyCores;
}

/** "the loader's processes use only 0.3 of 2 logical cores busy" / "the CPUs are mostly idle (…)". */
function idlePhrase(m: Measures): string {
  return known(m.loaderBusyCores)
    ? `the loader's processes keep only ${f.cores(m.loaderBusyCores, m.cores)}`
    : `the CPUs are mostly idle (${f.cores(m.cpuBusyCores ?? 0, m.cores)})`;
}

export function factsOf(m: Measures): Facts {
  const capacity = capacityOf(m);
  const work = workCores(m);
  const storageKnown = known(m.diskBytesPerSec) || known(m.diskFractionOfData);
  return {
    mode: m.source === 'point' ? 'sweep' : 'exec',
    waiting: known(m.waitFraction) ? m.waitFraction > T.waitFraction : null,
    cpuSaturated: known(m.cpuMean) ? m.cpuMean > T.cpuSaturated : null,
    cpuWorking: known(work) ? work >= T.cpuWorking * capacity : null,
    cpuLow: known(work) ? work < T.cpuLow * capacity : null,
    workersBusy: known(m.workerBusyFraction) ? m.workerBusyFraction >= T.workersBusy : null,
    storageBusy: storageKnown ? (m.diskBytesPerSec ?? 0) >= T.diskBytesPerSec || (m.diskFractionOfData ?? 0) >= T.diskFractionOfData : null,
    cacheCold: m.osCache !== false && known(m.pageCacheResident) ? m.pageCacheResident < T.coldCache : null,
    gpuBusy: known(m.gpuUtil) ? m.gpuUtil > T.gpuBusyPercent : null,
    gpuIdle: known(m.gpuUtil) ? m.gpuUtil < T.gpuIdlePercent : null,
    networkFlowing: known(m.networkBytesPerSec) ? m.networkBytesPerSec > 0 : null,
  };
}

// ---------- phrases: one per fact, each from its fact and its number ----------

/** "the consumer waits 46% of each step for data (40 ms of 87 ms)" / "waits only 0.4% …". */
export function waitPhrase(x: Facts, m: Measures): string | null {
  if (x.waiting === null || !known(m.waitFraction) || !known(m.waitP50Ms) || !known(m.stepMs)) return null;
  const detail = `(${f.ms(m.waitP50Ms)} of a ${f.ms(m.stepMs)} step)`;
  return x.waiting
    ? `the consumer waits ${f.pct(m.waitFraction)} of each step for data ${detail}`
    : `the consumer waits only ${f.pct(m.waitFraction)} of each step ${detail}`;
}

/** "the CPUs are saturated (2.0 of 2 logical cores busy)" / "the CPUs are not saturated (…)". */
export function cpuPhrase(x: Facts, m: Measures): string | null {
  if (x.cpuSaturated === null || !known(m.cpuBusyCores)) return null;
  return `the CPUs are ${x.cpuSaturated ? 'saturated' : 'not saturated'} (${f.cores(m.cpuBusyCores, m.cores)})`;
}

/** "storage is busy (420.0 MiB/s of reads)" / "storage is not busy (…)". */
export function storagePhrase(x: Facts, m: Measures): string | null {
  if (x.storageBusy === null) return null;
  const rate = known(m.diskBytesPerSec)
    ? `${f.bytes(m.diskBytesPerSec)}/s of reads`
    : `reads ${f.pct(m.diskFractionOfData ?? 0)} of the bytes consumed`;
  return `storage is ${x.storageBusy ? 'busy' : 'not busy'} (${rate})`;
}

export function cachePhrase(x: Facts, m: Measures): string | null {
  if (!x.cacheCold || !known(m.pageCacheResident)) return null;
  return `only ${f.pct(m.pageCacheResident)} of the file is in the page cache`;
}

export function gpuPhrase(m: Measures): string | null {
  return known(m.gpuUtil) ? `the GPU is ${m.gpuUtil.toFixed(0)}% busy` : null;
}

const join = (parts: Array<string | null>, sep = ', '): string => parts.filter(known).join(sep);

/** What is saturated, in words; "nothing is saturated (…)" only when the CPUs and storage were measured below their thresholds. */
export function saturationPhrase(x: Facts, m: Measures): string {
  const busy = [x.cpuSaturated ? cpuPhrase(x, m) : null, x.storageBusy ? storagePhrase(x, m) : null].filter(known);
  if (busy.length) return busy.join(' and ');
  const quiet = [
    known(m.cpuBusyCores) ? f.cores(m.cpuBusyCores, m.cores) : null,
    known(m.diskBytesPerSec) ? `storage ${f.bytes(m.diskBytesPerSec)}/s` : null,
  ].filter(known);
  if (x.cpuSaturated === null && x.storageBusy === null) return 'no CPU or storage readings';
  return `nothing is saturated${quiet.length ? ` (${quiet.join(', ')})` : ''}`;
}

// ---------- the rules ----------

export interface VerdictRule {
  kind: VerdictKind;
  /** The condition in words, written from THRESHOLDS (the table in docs/profiler.md). */
  when: string;
  applies(x: Facts): boolean;
  summary(x: Facts, m: Measures): string;
}

const W = f.pct(T.waitFraction);
const waits = `the consumer waits more than ${W} of its step`;

/** An exec run (no wait data) whose CPUs are saturated while the GPU is not: the CPU side starves the GPU. */
const execStarved = (x: Facts): boolean => x.mode === 'exec' && x.waiting === null && x.gpuBusy === false && x.cpuSaturated === true;

/** The rules in order: the first that applies gives the verdict. */
export const RULES: readonly VerdictRule[] = [
  {
    kind: 'gpu-bound',
    when: `GPU utilisation above ${T.gpuBusyPercent}% and ${waits.replace('waits more', 'does not wait more')} (exec runs: no wait data, the GPU alone); never a sweep, which drives no GPU (its readings are shown as "not used by this sweep")`,
    applies: (x) => x.gpuBusy === true && x.waiting !== true,
    summary: (x, m) => `GPU-bound: ${join([gpuPhrase(m), waitPhrase(x, m)], ' and ')}; faster loading will not speed this up.`,
  },
  {
    kind: 'decode-bound',
    when:
      `sweeps: ${waits}, storage is not busy, no bytes arrive over the network, and either every worker is busy ` +
      `(≥ ${f.pct(T.workersBusy)} of wall time × workers) or the CPUs are saturated (mean above ${f.pct(T.cpuSaturated)}) ` +
      `while the loader's own busy cores (its process tree's, when measured) are ≥ ${T.cpuWorking} × min(workers, cores)`,
    // Saturated CPUs count only when the loader itself is working: other processes' load is contention, not decoding.
    applies: (x) =>
      x.mode === 'sweep' &&
      x.waiting === true &&
      x.storageBusy !== true &&
      x.networkFlowing !== true &&
      (x.workersBusy === true || (x.cpuSaturated === true && x.cpuWorking !== false)),
    summary: (x, m) => {
      const cpu = x.cpuSaturated
        ? `${cpuPhrase(x, m)}${x.workersBusy === false && known(m.workerBusyFraction) ? ` though the workers were busy only ${f.pct(m.workerBusyFraction)} (other processes share the CPUs)` : ''}`
        : `every worker is busy (${f.pct(m.workerBusyFraction ?? 0)}) computing and ${cpuPhrase(x, m) ?? 'the CPUs are busy'}`;
      return `Decode-bound: ${join([waitPhrase(x, m), cpu, storagePhrase(x, m)])} — decoding and augmenting images on the CPUs is the limit.`;
    },
  },
  {
    kind: 'network-bound',
    when: `sweeps over a remote file (s3://, https://): ${waits}, bytes are being fetched, and busy cores < ${T.cpuLow} × min(workers, cores)`,
    applies: (x) => x.mode === 'sweep' && x.waiting === true && x.networkFlowing === true && x.cpuLow === true,
    summary: (x, m) =>
      `Network-bound: ${waitPhrase(x, m)}, while ${f.bytes(m.networkBytesPerSec ?? 0)}/s arrive over the network (GETs take ${f.ms(m.networkLatencyMs ?? 0)} on average) and ${idlePhrase(m)} — the loader waits for object storage.`,
  },
  {
    kind: 'disk-bound',
    when:
      `${waits} and (storage is busy: ≥ ${f.bytes(T.diskBytesPerSec)}/s of reads or reads ≥ ${f.pct(T.diskFractionOfData)} of the bytes consumed; ` +
      `or the page cache holds < ${f.pct(T.coldCache)} of the file with the OS cache) and busy cores < ${T.cpuLow} × min(workers, cores); ` +
      `exec runs: the GPU idles (< ${T.gpuIdlePercent}%) while storage is busy and the CPUs are mostly idle`,
    applies: (x) =>
      (x.waiting === true && (x.storageBusy === true || x.cacheCold === true) && x.cpuLow === true) ||
      (x.mode === 'exec' && x.waiting === null && x.gpuIdle === true && x.storageBusy === true && x.cpuLow === true),
    summary: (x, m) => {
      const first = x.waiting === null ? `the GPU idles at ${m.gpuUtil?.toFixed(0) ?? '?'}%` : waitPhrase(x, m);
      const reads = x.storageBusy ? storagePhrase(x, m) : cachePhrase(x, m);
      return `Disk-bound: ${first}, while ${reads} and ${idlePhrase(m)} — the loader waits for reads.`;
    },
  },
  {
    kind: 'input-bound',
    when: `${waits} and none of the above explains it; exec runs: the CPUs are saturated while the GPU is not busy (≤ ${T.gpuBusyPercent}%)`,
    applies: (x) => x.waiting === true || execStarved(x),
    summary: (x, m) => {
      if (x.waiting === null)
        return `Input-bound: ${cpuPhrase(x, m)} while ${gpuPhrase(m)} — the CPU side (data loading, or the script's own Python work) is the limit.`;
      const state = join([cpuPhrase(x, m), storagePhrase(x, m), cachePhrase(x, m)]);
      const nothing = x.cpuSaturated !== true && x.storageBusy !== true && x.cacheCold !== true;
      const why = nothing
        ? 'the loader cannot keep up although nothing is saturated: it needs more parallelism'
        : 'reading and decoding both take their share';
      return `Input-bound: ${waitPhrase(x, m)}${state ? `; ${state}` : ''} — ${why}.`;
    },
  },
  {
    kind: 'unknown',
    when: 'nothing measured, or an exec run with neither GPU readings nor loader statistics',
    applies: (x) => x.waiting === null && x.gpuBusy === null,
    summary: () => 'Unknown: without GPU readings or loader statistics there is no telling what limits the run.',
  },
  {
    kind: 'balanced',
    when: 'otherwise',
    applies: () => true,
    summary: (x, m) => {
      const lead = x.waiting === null ? `${gpuPhrase(m)} (not saturated)` : waitPhrase(x, m);
      const sat = saturationPhrase(x, m);
      const busy = x.cpuSaturated === true || x.storageBusy === true;
      return `Balanced: ${lead}, and ${sat}${busy ? ' — the loader keeps up, but anything else on this machine competes with it' : ''}.`;
    },
  },
];

/** The first rule that applies. */
export function ruleFor(x: Facts): VerdictRule {
  return RULES.find((r) => r.applies(x))!;
}

/** The rules as the markdown table docs/profiler.md shows (a test keeps the two equal). */
export function rulesMarkdown(): string {
  return ['| verdict | when (first match, in this order) |', '|---|---|', ...RULES.map((r) => `| **${r.kind}** | ${r.when} |`)].join('\n');
}
