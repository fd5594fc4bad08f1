import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { diagnose, rulesMarkdown, THRESHOLDS } from '../../core/profile/verdict/verdict.js';
import type {
  DatasetInfo,
  GpuReading,
  MachineInfo,
  PointConfig,
  PointResult,
  TelemetrySample,
  VerdictKind,
} from '../../core/api/profile-model.js';

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;
const machineOf = (cores: number): MachineInfo => ({
  hostname: 'box',
  cpuModel: 'Test CPU',
  cores,
  ramBytes: 64 * GiB,
  os: 'Linux',
  node: 'v20',
  gpus: [{ index: 0, name: 'GPU', memoryTotalMiB: 81559 }],
});
const machine = machineOf(16);
const dataset = (sizeBytes: number): DatasetInfo => ({
  path: 'train.beton',
  sizeBytes,
  headerSha256: 'x',
  numSamples: 100_000,
  schema: [],
});

let nextIndex = 0;
/**
 * A point measured for 10 s: `ips` images/s in batches of `batchSize`, the consumer waiting
 * `waitMs`, workers busy `busy` of the time, `cpu` busy on every core, `diskMiBps` of reads.
 */
function point(
  o: Partial<PointConfig> & {
    ips: number;
    waitMs?: number;
    busy?: number;
    cpu?: number;
    cores?: number;
    diskMiBps?: number;
    resident?: number | null;
    gpu?: number | null;
  },
): PointResult {
  const config: PointConfig = {
    workers: o.workers ?? 8,
    batchSize: o.batchSize ?? 256,
    order: o.order ?? 'random',
    osCache: o.osCache ?? true,
  };
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
    cpuPerCore: new Array<number>(o.cores ?? machine.cores).fill(o.cpu ?? 0.3),
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

/**
 * One scenario of the verdict table: a sweep's best point (step time, wait share, CPU, worker
 * busy share, reads, page cache, GPU) or an exec run (CPU, GPU, reads). `wait` is the share
 * of the consumer's step spent waiting; `cpu` the mean busy fraction of every core.
 */
interface Scenario {
  name: string;
  mode: 'sweep' | 'exec';
  cores?: number;
  workers?: number;
  batchSize?: number;
  stepMs?: number;
  wait?: number;
  cpu: number;
  busy?: number;
  disk?: number;
  resident?: number;
  gpu?: number | null;
  expect: VerdictKind;
  says?: RegExp[];
  never?: RegExp[];
}

function verdictOf(s: Scenario) {
  const m = machineOf(s.cores ?? 16);
  if (s.mode === 'exec') {
    const xs = samples(40, { ips: 500, cpu: s.cpu, gpu: s.gpu ?? null, diskMiBps: s.disk ?? 0 }).map((x) => ({
      ...x,
      cpuPerCore: new Array<number>(m.cores).fill(s.cpu),
    }));
    return diagnose([], xs, m);
  }
  const batchSize = s.batchSize ?? 256;
  const stepMs = s.stepMs ?? 100;
  const p = point({
    workers: s.workers ?? 8,
    batchSize,
    ips: (batchSize * 1000) / stepMs,
    waitMs: (s.wait ?? 0) * stepMs,
    busy: s.busy ?? 0.5,
    cpu: s.cpu,
    cores: m.cores,
    diskMiBps: s.disk ?? 0,
    resident: s.resident ?? null,
    gpu: s.gpu ?? null,
  });
  return diagnose([p], [], m);
}

const NOTHING_SATURATED = /nothing is saturated|not saturated|neither/;

/** The verdict rules as scenarios: waits × CPU × storage × GPU → verdict, and what its summary must (not) say. */
const TABLE: Scenario[] = [
  // issue 14: "Balanced: the consumer hardly waits (90% of a step)" — a 0.9 ms wait on a 1 ms step is not noise.
  {
    name: 'a 90% wait on a 1 ms step',
    mode: 'sweep',
    batchSize: 16,
    stepMs: 1,
    wait: 0.9,
    cpu: 0.4,
    busy: 0.5,
    expect: 'input-bound',
    says: [/waits 90% of each step for data \(0\.9 ms of a 1\.0 ms step\)/],
    never: [/hardly|only 90%/],
  },
  // issue 14: `npm run demo` on 2 cores: "balanced … hardly waits (79% of a step) and nothing is saturated" next to "CPU 2.0 of 2 cores busy (100%)".
  {
    name: 'the demo: 79% wait, 2 of 2 cores busy',
    mode: 'sweep',
    cores: 2,
    workers: 2,
    batchSize: 16,
    stepMs: 1.2,
    wait: 0.79,
    cpu: 1,
    busy: 0.6,
    expect: 'decode-bound',
    says: [/waits 79% of each step/, /the CPUs are saturated \(2\.0 of 2 logical cores busy\) though the workers were busy only 60%/],
    never: [NOTHING_SATURATED],
  },
  // issue 14: "a run waiting 46% called input-bound" while its CPUs were saturated.
  {
    name: 'a 46% wait with saturated CPUs',
    mode: 'sweep',
    cores: 2,
    workers: 1,
    wait: 0.46,
    cpu: 0.98,
    busy: 0.9,
    expect: 'decode-bound',
    says: [/waits 46% of each step/, /the CPUs are saturated \(2\.0 of 2 logical cores busy\)/],
    never: [NOTHING_SATURATED],
  },
  {
    name: 'waits, nothing saturated',
    mode: 'sweep',
    wait: 0.32,
    cpu: 0.35,
    busy: 0.6,
    expect: 'input-bound',
    says: [
      /waits 32% of each step/,
      /the CPUs are not saturated \(5\.6 of 16 logical cores busy\)/,
      /storage is not busy/,
      /although nothing is saturated: it needs more parallelism/,
    ],
  },
  {
    name: 'waits, every worker busy computing',
    mode: 'sweep',
    workers: 16,
    wait: 0.3,
    cpu: 0.8,
    busy: 0.95,
    expect: 'decode-bound',
    says: [/every worker is busy \(95%\) computing and the CPUs are not saturated \(12\.8 of 16/, /storage is not busy/],
  },
  {
    name: 'waits, heavy reads, idle CPUs',
    mode: 'sweep',
    wait: 0.5,
    cpu: 0.1,
    busy: 0.9,
    disk: 400,
    expect: 'disk-bound',
    says: [/storage is busy \(400\.0 MiB\/s of reads\)/, /the CPUs are mostly idle \(1\.6 of 16/],
  },
  {
    name: 'waits, cold page cache, idle CPUs',
    mode: 'sweep',
    wait: 0.6,
    cpu: 0.05,
    busy: 0.4,
    resident: 0.2,
    expect: 'disk-bound',
    says: [/only 20% of the file is in the page cache/],
  },
  {
    name: 'waits, storage busy and CPUs half busy',
    mode: 'sweep',
    wait: 0.4,
    cpu: 0.6,
    busy: 0.5,
    disk: 100,
    expect: 'input-bound',
    says: [/storage is busy \(100\.0 MiB\/s of reads\)/, /reading and decoding both take their share/],
    never: [/nothing is saturated/],
  },
  {
    name: 'waits, storage busy and CPUs saturated',
    mode: 'sweep',
    wait: 0.4,
    cpu: 0.95,
    busy: 0.9,
    disk: 100,
    expect: 'input-bound',
    says: [/the CPUs are saturated/, /storage is busy/],
    never: [NOTHING_SATURATED],
  },
  {
    name: 'a 0.4% wait, nothing saturated',
    mode: 'sweep',
    wait: 0.004,
    cpu: 0.4,
    expect: 'balanced',
    says: [/waits only 0\.4% of each step/, /nothing is saturated \(6\.4 of 16 logical cores busy, storage 0 B\/s\)/],
  },
  {
    name: 'a 2% wait, CPUs saturated',
    mode: 'sweep',
    wait: 0.02,
    cpu: 0.95,
    expect: 'balanced',
    says: [/waits only 2\.0% of each step/, /the CPUs are saturated \(15\.2 of 16/, /anything else on this machine competes/],
    never: [/nothing is saturated/],
  },
  {
    name: 'a wait at the threshold is not waiting',
    mode: 'sweep',
    wait: THRESHOLDS.waitFraction,
    cpu: 0.3,
    expect: 'balanced',
    says: [/waits only 5\.0% of each step/],
  },
  {
    name: 'a wait just over the threshold is',
    mode: 'sweep',
    wait: THRESHOLDS.waitFraction + 0.01,
    cpu: 0.3,
    expect: 'input-bound',
    says: [/waits 6\.0% of each step for data/],
  },
  {
    // A sweep drives no GPU: a busy one is someone else's work, never "gpu-bound" (issue 18).
    name: 'GPU busy, the consumer not waiting',
    mode: 'sweep',
    wait: 0.01,
    cpu: 0.3,
    gpu: 95,
    expect: 'balanced',
    never: [/GPU-bound/],
  },
  { name: 'GPU busy but the consumer waiting', mode: 'sweep', wait: 0.3, cpu: 0.3, gpu: 95, expect: 'input-bound' },
  { name: 'exec: GPU busy', mode: 'exec', cpu: 0.4, gpu: 97, expect: 'gpu-bound', says: [/^GPU-bound: the GPU is 97% busy;/] },
  {
    name: 'exec: GPU idle, CPUs saturated',
    mode: 'exec',
    cpu: 0.95,
    gpu: 30,
    expect: 'input-bound',
    says: [/the CPUs are saturated \(15\.2 of 16 logical cores busy\) while the GPU is 30% busy/],
  },
  { name: 'exec: GPU 70%, CPUs saturated', mode: 'exec', cpu: 0.95, gpu: 70, expect: 'input-bound', never: [NOTHING_SATURATED] },
  {
    name: 'exec: GPU idle, storage busy, CPUs idle',
    mode: 'exec',
    cpu: 0.05,
    gpu: 20,
    disk: 300,
    expect: 'disk-bound',
    says: [/the GPU idles at 20%, while storage is busy \(300\.0 MiB\/s of reads\)/],
  },
  {
    name: 'exec: GPU 70%, nothing saturated',
    mode: 'exec',
    cpu: 0.3,
    gpu: 70,
    expect: 'balanced',
    says: [/the GPU is 70% busy \(not saturated\), and nothing is saturated/],
  },
  {
    name: 'exec: GPU 70%, storage busy',
    mode: 'exec',
    cpu: 0.3,
    gpu: 70,
    disk: 300,
    expect: 'balanced',
    says: [/storage is busy/],
    never: [/nothing is saturated/],
  },
  { name: 'exec: no GPU readings', mode: 'exec', cpu: 0.5, gpu: null, expect: 'unknown' },
];

describe('verdict: the rules table, row by row', () => {
  it.each(TABLE.map((s) => [s.name, s] as const))('%s', (_name, s) => {
    const v = verdictOf(s);
    expect(v.kind).toBe(s.expect);
    for (const r of s.says ?? []) expect(v.summary).toMatch(r);
    for (const r of s.never ?? []) expect(v.summary).not.toMatch(r);
  });
});

describe('verdict: the words agree with the numbers', () => {
  // Every combination of the levels around each threshold: the summary may only say what the
  // evidence shows (waits, CPU) and a rule's kind only where its condition holds.
  const waits = [0, 0.004, 0.04, 0.06, 0.46, 0.9];
  const cpus = [0.05, 0.4, 0.6, 0.92, 1];
  const busies = [0.3, 0.95];
  const disks = [0, 100];
  const gpus = [null, 30, 70, 97];
  const grid: Scenario[] = [];
  for (const wait of waits)
    for (const cpu of cpus)
      for (const busy of busies)
        for (const disk of disks)
          for (const gpu of gpus)
            grid.push({
              name: '',
              mode: 'sweep',
              wait,
              cpu,
              busy,
              disk,
              gpu,
              cores: 2,
              workers: 2,
              batchSize: 16,
              stepMs: 0.8,
              expect: 'unknown',
            });
  for (const cpu of cpus)
    for (const disk of disks) for (const gpu of gpus) grid.push({ name: '', mode: 'exec', cpu, disk, gpu, expect: 'unknown' });

  it(`${grid.length} scenarios: no summary contradicts its evidence`, () => {
    for (const s of grid) {
      const v = verdictOf(s);
      const what = `${JSON.stringify({ ...s, name: undefined, expect: undefined })} → ${v.kind}: ${v.summary}`;
      const waiting = s.mode === 'sweep' ? (s.wait ?? 0) > THRESHOLDS.waitFraction : null;
      const saturated = s.cpu > THRESHOLDS.cpuSaturated;
      if (/hardly|waits only/.test(v.summary)) expect(waiting, what).toBe(false);
      if (/waits \d[\d.]*% of each step for data/.test(v.summary)) expect(waiting, what).toBe(true);
      if (/nothing is saturated|CPUs are not saturated/.test(v.summary)) expect(saturated, what).toBe(false);
      if (saturated && v.kind !== 'gpu-bound' && v.kind !== 'unknown') expect(v.summary, what).toMatch(/the CPUs are saturated/);
      if (/storage is not busy/.test(v.summary)) expect(s.disk ?? 0, what).toBe(0);
      // The wait share quoted in the summary is the one in the evidence.
      const quoted = /waits (?:only )?([\d.]+%) of each step/.exec(v.summary)?.[1];
      if (quoted) expect(v.evidence.join('\n'), what).toContain(`: ${quoted} of its time.`);
      if (v.kind === 'input-bound' || v.kind === 'decode-bound')
        expect(waiting === true || (s.mode === 'exec' && saturated), what).toBe(true);
      if (v.kind === 'balanced' && s.mode === 'sweep') expect(waiting, what).toBe(false);
      if (v.kind === 'gpu-bound') expect((s.gpu ?? 0) > THRESHOLDS.gpuBusyPercent && waiting !== true, what).toBe(true);
    }
  });

  it('docs/profiler.md shows the rules table the code runs (thresholds included)', () => {
    const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'profiler.md'), 'utf8');
    expect(doc).toContain(rulesMarkdown());
    expect(rulesMarkdown()).toContain(`more than ${THRESHOLDS.waitFraction * 100}.0% of its step`);
  });
});

describe('verdict: evidence and advice', () => {
  it('input-bound: advises more workers where they still helped; points are counted from 1', () => {
    // step at 2048 img/s, batch 256: 125 ms; waiting 40 ms = 32%
    nextIndex = 0;
    const pts = [
      point({ workers: 2, ips: 1000, waitMs: 150 }),
      point({ workers: 4, ips: 1500, waitMs: 80 }),
      point({ workers: 8, ips: 2048, waitMs: 40, busy: 0.6, cpu: 0.35 }),
    ];
    const v = diagnose(pts, [], machine);
    expect(v.kind).toBe('input-bound');
    expect(v.summary).toMatch(/consumer waits 32% of each step/);
    const ev = v.evidence.join('\n');
    expect(ev).toMatch(/^Best point #3 of 3 \(8 workers, batch 256/);
    expect(ev).toMatch(/waited 40 ms per batch \(median; p95 60 ms\) of a 125 ms step: 32%/);
    expect(ev).toMatch(/Workers were busy 60%/);
    expect(v.advice[0]).toMatch(/^More workers: 4 → 8 workers raised throughput 1,500 img\/s → 2,048 img\/s \(\+37%\); try 16/);
  });

  it('one worker is "1 worker", one GPU "1 GPU"', () => {
    const v = diagnose([point({ workers: 1, ips: 500, waitMs: 100, gpu: 20 })], [], machine);
    const ev = v.evidence.join('\n');
    expect(ev).toContain('(1 worker, batch 256');
    expect(ev).toContain('(1 worker).');
    expect(ev).toContain('GPU: not used by this sweep (20% utilisation from other work; not evidence for a loader setting).');
    expect(ev + v.advice.join('\n')).not.toMatch(/\b1 workers\b/);
  });

  it('uneven supply: advises batches ahead where the user can set it (form, CLI), from the current value', () => {
    const p = point({ ips: 2048, waitMs: 10, busy: 0.5, cpu: 0.4 });
    p.waitP95Ms = 60;
    const v = diagnose([p], [], machine, { batchesAhead: 4 });
    expect(v.kind).toBe('input-bound');
    expect(v.advice.join('\n')).toMatch(
      /Raise batches ahead from 4 to 8 \(Profile → "Batches ahead", beton profile --batches-ahead 8; the loader's batchesAhead option\): .*p95 wait 60 ms against a median of 10 ms/,
    );
    expect(diagnose([p], [], machine).advice.join('\n')).toMatch(/from 3 to 6/);
  });

  it('decode-bound advice names the build knobs as the Sources screen and beton build call them', () => {
    const pts = [
      point({ workers: 8, ips: 1800, waitMs: 60, busy: 0.97, cpu: 0.5 }),
      point({ workers: 16, ips: 3000, waitMs: 40, busy: 0.98, cpu: 0.96, diskMiBps: 1 }),
    ];
    const v = diagnose(pts, [], machine);
    expect(v.kind).toBe('decode-bound');
    expect(v.evidence.join('\n')).toMatch(/CPU: 15\.4 of 16 logical cores busy \(96%\)/);
    const advice = v.advice.join('\n');
    expect(advice).not.toMatch(/More workers/); // every core is busy already
    expect(advice).toMatch(/Write mode raw \(Sources; beton build --write-mode raw\)/);
    expect(advice).toMatch(/Max resolution at build time \(Sources; beton build --max-resolution\)/);
    expect(advice).toMatch(/Pass-through \(--pass-through\)/);
    // Saturated CPUs (2 of 2 busy, the workers only part of it): no "more workers" or "use every core".
    const shared = diagnose(
      [point({ workers: 1, ips: 6000, batchSize: 8, waitMs: 0.9, busy: 0.78, cpu: 0.99, cores: 2 })],
      [],
      machineOf(2),
    ).advice.join('\n');
    expect(shared).toMatch(/^Other processes take CPU time: all 2 logical cores were busy while the workers were busy only 78%/);
    expect(shared).not.toMatch(/More workers|Use every core/);
  });

  it('disk-bound: a file larger than RAM gets quasi_random + no OS cache, with the measured orders', () => {
    const pts = [
      point({ ips: 900, waitMs: 200, busy: 0.9, cpu: 0.1, diskMiBps: 400, order: 'random' }),
      point({ ips: 1100, waitMs: 150, busy: 0.9, cpu: 0.12, diskMiBps: 420, order: 'quasi_random', osCache: false }),
    ];
    const v = diagnose(pts, [], machine, { dataset: dataset(200 * GiB) });
    expect(v.kind).toBe('disk-bound');
    const advice = v.advice.join('\n');
    expect(advice).toMatch(/osCache off: 1,100 img\/s against 900 img\/s/);
    expect(advice).toMatch(
      /order quasi_random with osCache off: the 200\.0 GiB file is larger than 80% of the 64\.0 GiB RAM.*measured: 1,100 img\/s quasi_random against 900 img\/s random/,
    );
    expect(v.evidence.join('\n')).toMatch(/Storage reads: 420\.0 MiB\/s \(4\.1 GiB in all, \d+% of the bytes the samples occupy\)/);
  });

  it('disk-bound on a cold cache advises the OS cache where the file fits', () => {
    const v = diagnose([point({ ips: 500, waitMs: 300, busy: 0.4, cpu: 0.05, resident: 0.2 })], [], machine, {
      dataset: dataset(10 * GiB),
    });
    expect(v.kind).toBe('disk-bound');
    expect(v.advice[0]).toMatch(/^osCache on: the 10\.0 GiB file fits in 64\.0 GiB of RAM/);
  });

  it('balanced keeps the best configuration; gpu-bound suggests fewer workers where they sufficed', () => {
    expect(diagnose([point({ ips: 2048, waitMs: 0.5, busy: 0.5, cpu: 0.4 })], [], machine).advice[0]).toMatch(
      /^Keep 8 workers, batch 256, random, OS cache: 2,048 img\/s/,
    );
    // A busy GPU during a sweep is not the sweep's: not gpu-bound, and said so.
    const pts = [point({ workers: 4, ips: 1980, waitMs: 0.1, gpu: 95 }), point({ workers: 8, ips: 2000, waitMs: 0.1, gpu: 96 })];
    const v = diagnose(pts, [], machine);
    expect(v.kind).toBe('balanced');
    expect(v.evidence.join('\n')).toMatch(/GPU: not used by this sweep \(96% utilisation from other work/);
  });

  it('exec runs: evidence from samples; only the samples where images were produced count', () => {
    const v = diagnose([], samples(40, { ips: 1200, cpu: 0.4, gpu: 97 }), machine);
    expect(v.evidence.join('\n')).toMatch(/GPU utilisation: 97% \(mean over 1 GPU\)/);
    expect(v.evidence[0]).toMatch(/reported 1,200 img\/s on average/);
    expect(diagnose([], samples(40, { ips: 300, cpu: 0.95, gpu: 30 }), machine).advice[0]).toMatch(
      /num_workers\), up to the 16 logical cores/,
    );
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
    const root = join(import.meta.dirname, '..', '..', 'core', 'profile', 'verdict');
    const files = readdirSync(root).filter((n) => n.endsWith('.ts'));
    expect(files).toContain('verdict.ts');
    for (const f of files) {
      expect(readFileSync(join(root, f), 'utf8'), f).not.toMatch(/from ['"]node:/);
    }
  });
});
