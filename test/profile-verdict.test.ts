import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { diagnose, THRESHOLDS } from '../core/profile/verdict.js';
import type { DatasetInfo, GpuReading, MachineInfo, PointConfig, PointResult, TelemetrySample } from '../core/profile/types.js';

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;
const machine: MachineInfo = { hostname: 'box', cpuModel: 'Test CPU', cores: 16, ramBytes: 64 * GiB, os: 'Linux', node: 'v20', gpus: [{ index: 0, name: 'GPU', memoryTotalMiB: 81559 }] };
const dataset = (sizeBytes: number): DatasetInfo => ({ path: 'train.beton', sizeBytes, headerSha256: 'x', numSamples: 100_000, schema: [] });

let nextIndex = 0;
/**
 * A point measured for 10 s: `ips` images/s in batches of `batchSize`, the consumer waiting
 * `waitMs`, workers busy `busy` of the time, `cpu` busy on every core, `diskMiBps` of reads.
 */
function point(o: Partial<PointConfig> & { ips: number; waitMs?: number; busy?: number; cpu?: number; diskMiBps?: number; resident?: number | null; gpu?: number | null }): PointResult {
  const config: PointConfig = { workers: o.workers ?? 8, batchSize: o.batchSize ?? 256, order: o.order ?? 'random', osCache: o.osCache ?? true };
  const seconds = 10;
  const batchesPerSec = o.ips / config.batchSize;
  return {
    index: nextIndex++,
    config,
    images: o.ips * seconds,
    seconds,
    imagesPerSec: o.ips,
    batchesPerSec,
    waitP50Ms: o.waitMs ?? 0,
    waitP95Ms: (o.waitMs ?? 0) * 1.5,
    // summed worker busy ms per batch, so that busy time = busy × wall × workers
    workerBusyMsPerBatch: ((o.busy ?? 0.5) * config.workers * 1000) / batchesPerSec,
    cpuPerCore: new Array<number>(machine.cores).fill(o.cpu ?? 0.3),
    rssPeakBytes: 2 * GiB,
    diskReadBytes: (o.diskMiBps ?? 0) * MiB * seconds,
    pageCacheResident: o.resident ?? null,
    gpuUtilMean: o.gpu ?? null,
  };
}

/** Exec-mode samples: `n` of them 250 ms apart. */
function samples(n: number, o: { ips: number | null; cpu: number; gpu: number | null; diskMiBps?: number }): TelemetrySample[] {
  const gpus: GpuReading[] = o.gpu == null ? [] : [{ index: 0, utilPercent: o.gpu, memoryUsedMiB: 30_000, powerW: 300 }];
  return Array.from({ length: n }, (_, i) => ({
    t: (i + 1) * 250,
    point: null,
    imagesPerSec: o.ips,
    cpuPerCore: new Array<number>(machine.cores).fill(o.cpu),
    rssBytes: 4 * GiB,
    diskReadBytes: ((o.diskMiBps ?? 0) * MiB) / 4,
    gpus,
  }));
}

describe('verdict: sweeps', () => {
  it('input-bound: the consumer waits, nothing saturated; advises more workers where they still helped', () => {
    // step at 2048 img/s, batch 256: 125 ms; waiting 40 ms = 32%
    const pts = [point({ workers: 2, ips: 1000, waitMs: 150 }), point({ workers: 4, ips: 1500, waitMs: 80 }), point({ workers: 8, ips: 2048, waitMs: 40, busy: 0.6, cpu: 0.35 })];
    const v = diagnose(pts, [], machine);
    expect(v.kind).toBe('input-bound');
    expect(v.summary).toMatch(/consumer waits 32% of each step/);
    expect(v.evidence.join('\n')).toMatch(/waited 40 ms per batch \(median; p95 60 ms\) of a 125 ms step: 32%/);
    expect(v.evidence.join('\n')).toMatch(/Workers were busy 60%/);
    expect(v.advice[0]).toMatch(/^More workers: 4 → 8 workers raised throughput 1,500 img\/s → 2,048 img\/s \(\+37%\); try 16/);
  });

  it('input-bound: jittery supply suggests batchesAhead', () => {
    const p = point({ ips: 2048, waitMs: 10, busy: 0.5, cpu: 0.4 });
    p.waitP95Ms = 60;
    const v = diagnose([p], [], machine);
    expect(v.kind).toBe('input-bound');
    expect(v.advice.join('\n')).toMatch(/Raise batchesAhead: .*p95 wait 60 ms against a median of 10 ms/);
  });

  it('decode-bound: all workers busy computing, storage idle', () => {
    const pts = [point({ workers: 8, ips: 1800, waitMs: 60, busy: 0.97, cpu: 0.5 }), point({ workers: 16, ips: 3000, waitMs: 40, busy: 0.98, cpu: 0.96, diskMiBps: 1 })];
    const v = diagnose(pts, [], machine);
    expect(v.kind).toBe('decode-bound');
    expect(v.summary).toMatch(/every worker is busy \(98%\)/);
    expect(v.evidence.join('\n')).toMatch(/CPU: 15\.4 of 16 logical cores busy \(96%\)/);
    const advice = v.advice.join('\n');
    expect(advice).toMatch(/the machine has only 16 logical cores/);
    expect(advice).toMatch(/--write-mode raw/);
    expect(advice).toMatch(/--max-resolution/);
    expect(advice).toMatch(/--pass-through/);
  });

  it('disk-bound: workers wait for reads (low CPU, heavy reads); a file larger than RAM gets quasi_random + no OS cache', () => {
    const pts = [point({ ips: 900, waitMs: 200, busy: 0.9, cpu: 0.1, diskMiBps: 400, order: 'random' }), point({ ips: 1100, waitMs: 150, busy: 0.9, cpu: 0.12, diskMiBps: 420, order: 'quasi_random', osCache: false })];
    const v = diagnose(pts, [], machine, { dataset: dataset(200 * GiB) });
    expect(v.kind).toBe('disk-bound');
    expect(v.summary).toMatch(/420\.0 MiB\/s come from storage/);
    const advice = v.advice.join('\n');
    expect(advice).toMatch(/osCache off: 1,100 img\/s against 900 img\/s/);
    expect(advice).toMatch(/order quasi_random with osCache off: the 200\.0 GiB file is larger than 80% of the 64\.0 GiB RAM.*measured: 1,100 img\/s quasi_random against 900 img\/s random/);
    expect(v.evidence.join('\n')).toMatch(/Storage reads: 420\.0 MiB\/s \(4\.1 GiB in all, \d+% of the bytes the samples occupy\)/);
  });

  it('disk-bound: a cold page cache with the OS cache, even at a low read rate', () => {
    const v = diagnose([point({ ips: 500, waitMs: 300, busy: 0.4, cpu: 0.05, resident: 0.2 })], [], machine, { dataset: dataset(10 * GiB) });
    expect(v.kind).toBe('disk-bound');
    expect(v.summary).toMatch(/only 20% of the file is in the page cache/);
    expect(v.advice[0]).toMatch(/^osCache on: the 10\.0 GiB file fits in 64\.0 GiB of RAM/);
  });

  it('balanced: the consumer hardly waits', () => {
    const v = diagnose([point({ ips: 2048, waitMs: 0.5, busy: 0.5, cpu: 0.4 })], [], machine);
    expect(v.kind).toBe('balanced');
    expect(v.summary).toMatch(/hardly waits \(0.4% of a step\)/);
    expect(v.advice[0]).toMatch(/^Keep 8 workers, batch 256, random, OS cache: 2,048 img\/s/);
  });

  it('a wait over 1% of the step but under 1 ms is noise', () => {
    // batch 16 at 32,000 img/s: a 0.5 ms step; 0.9 ms wait is > 1% but < 1 ms
    expect(diagnose([point({ batchSize: 16, ips: 32_000, waitMs: 0.9 })], [], machine).kind).toBe('balanced');
    expect(THRESHOLDS.waitMs).toBe(1);
  });

  it('gpu-bound: GPU above 90% with the consumer not waiting; suggests fewer workers where they sufficed', () => {
    const pts = [point({ workers: 4, ips: 1980, waitMs: 0.1, gpu: 95 }), point({ workers: 8, ips: 2000, waitMs: 0.1, gpu: 96 })];
    const v = diagnose(pts, [], machine);
    expect(v.kind).toBe('gpu-bound');
    expect(v.advice[0]).toMatch(/^Fewer workers: 4 workers already give 1,980 img\/s \(99% of the best\)/);
  });
});

describe('verdict: exec runs', () => {
  it('gpu-bound from samples', () => {
    const v = diagnose([], samples(40, { ips: 1200, cpu: 0.4, gpu: 97 }), machine);
    expect(v.kind).toBe('gpu-bound');
    expect(v.evidence.join('\n')).toMatch(/GPU utilisation: 97% \(mean over 1 GPU\)/);
    expect(v.evidence[0]).toMatch(/reported 1,200 img\/s on average/);
  });

  it('input-bound: GPU idle while the CPUs are saturated', () => {
    const v = diagnose([], samples(40, { ips: 300, cpu: 0.95, gpu: 30 }), machine);
    expect(v.kind).toBe('input-bound');
    expect(v.summary).toMatch(/GPU idles at 30% while the CPUs are 95% busy/);
    expect(v.advice[0]).toMatch(/numWorkers towards the 16 logical cores/);
  });

  it('disk-bound: GPU idle, CPUs idle, storage busy', () => {
    const v = diagnose([], samples(40, { ips: 300, cpu: 0.05, gpu: 20, diskMiBps: 300 }), machine);
    expect(v.kind).toBe('disk-bound');
    expect(v.summary).toMatch(/300\.0 MiB\/s/);
  });

  it('balanced: GPU half busy, nothing saturated', () => {
    expect(diagnose([], samples(40, { ips: 300, cpu: 0.3, gpu: 70 }), machine).kind).toBe('balanced');
  });

  it('only looks at the samples where images were produced (start-up is not idleness)', () => {
    const startup = samples(40, { ips: null, cpu: 0.05, gpu: 0 });
    const training = samples(20, { ips: 1000, cpu: 0.3, gpu: 98 }).map((s) => ({ ...s, t: s.t + 10_000 }));
    expect(diagnose([], [...startup, ...training], machine).kind).toBe('gpu-bound');
  });

  it('unknown: no GPU readings and no loader statistics; or nothing at all', () => {
    const v = diagnose([], samples(10, { ips: 100, cpu: 0.5, gpu: null }), machine);
    expect(v.kind).toBe('unknown');
    expect(v.evidence).toContain('No GPU readings.');
    expect(diagnose([], [], machine).kind).toBe('unknown');
    expect(diagnose([{ ...point({ ips: 0 }), images: 0 }], [], machine).kind).toBe('unknown');
  });
});

describe('verdict: purity', () => {
  it('the verdict modules do no I/O (no node: imports)', () => {
    const root = join(import.meta.dirname, '..', 'core', 'profile');
    for (const f of readdirSync(root).filter((n) => n.startsWith('verdict'))) {
      expect(readFileSync(join(root, f), 'utf8'), f).not.toMatch(/from ['"]node:/);
    }
  });
});
