// Engines, slices, stage costs and contention (issue 18): the pure parts, the runs database's
// engine column, and a missing engine's one-line message. The real FFCV and torch runs are in
// test/interop/profile-engines.test.ts.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { ablationStages, sliceRates, spreadOf, stageLabel, stagePrefixes, timerStages } from '../../core/profile/engines/engine-points.js';
import { engineAvailability, parseDriverLine, runPythonEngine, type PythonJob } from '../../core/profile/engines/python-engine.js';
import { RandomHorizontalFlip, RandomResizedCropRGBImageDecoder, ToCHW } from '../../core/pipeline/spec.js';
import { diagnose, verdictEngine } from '../../core/profile/verdict/verdict.js';
import type { MachineInfo, PointConfig, PointResult } from '../../core/api/profile-model.js';
import { RunsDb } from '../../core/runs/runs-db.js';
import { cli } from '../helpers/cli.js';
import { sampleRun } from '../helpers/cli-inputs.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-engines-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const machine: MachineInfo = { hostname: 'box', cpuModel: 'cpu', cores: 4, ramBytes: 2 ** 36, os: 'Linux', node: 'v20', gpus: [] };

let n = 0;
function point(
  o: Partial<PointConfig> & {
    ips: number;
    cpu?: number;
    loaderCpu?: number | null;
    machineCpu?: number | null;
    waitMs?: number;
    busy?: number;
  },
): PointResult {
  const config: PointConfig = {
    workers: o.workers ?? 4,
    batchSize: 64,
    order: 'random',
    osCache: true,
    ...(o.engine ? { engine: o.engine } : {}),
  };
  const bps = o.ips / 64;
  return {
    index: n++,
    config,
    images: o.ips * 3,
    seconds: 3,
    imagesPerSec: o.ips,
    batchesPerSec: bps,
    waitP50Ms: o.waitMs ?? 40,
    waitP95Ms: (o.waitMs ?? 40) * 1.2,
    workerBusyMsPerBatch: ((o.busy ?? 0.97) * config.workers * 1000) / bps,
    cpuPerCore: [1, 1, 1, 1].map(() => o.cpu ?? 0.97),
    rssPeakBytes: 1,
    diskReadBytes: 0,
    pageCacheResident: 1,
    gpuUtilMean: null,
    slices: [o.ips * 0.9, o.ips, o.ips * 1.1],
    loaderCpu: o.loaderCpu ?? null,
    machineCpu: o.machineCpu ?? null,
  };
}

describe('slices and spread', () => {
  it('cuts the measured time into equal slices of img/s; the spread is (max - min) / median', () => {
    // 3 s, batches of 10 images: 10 in the first second, 30 in the second, 20 in the third.
    const arrivals: Array<[number, number]> = [
      [100, 10],
      [1100, 10],
      [1500, 10],
      [1900, 10],
      [2200, 10],
      [2999, 10],
    ];
    expect(sliceRates(arrivals, 3, 3)).toEqual([10, 30, 20]);
    expect(spreadOf([10, 30, 20])).toBeCloseTo(1);
    expect(spreadOf([5])).toBeNull();
    expect(spreadOf(undefined)).toBeNull();
  });
});

describe('stage costs', () => {
  const steps = [RandomResizedCropRGBImageDecoder(160), RandomHorizontalFlip(), ToCHW()];
  it('FFCV ablation: prefixes decoder, + flip; each stage the difference in time per image × parallel workers', () => {
    expect(stagePrefixes(steps).map((p) => [p.stage, p.steps.length])).toEqual([
      ['read+decode', 1],
      ['flip', 2],
    ]);
    // 1000 img/s decoder only (1 ms), 800 with flip (1.25 ms), 500 the whole (2 ms); 2 workers.
    const s = ablationStages(
      [
        { stage: 'read+decode', imagesPerSec: 1000 },
        { stage: 'flip', imagesPerSec: 800 },
      ],
      steps,
      500,
      2,
    );
    expect(s.method).toBe('ablation');
    expect(s.stages.map((x) => x.stage)).toEqual(['read+decode', 'flip', 'to CHW']);
    expect(s.stages.map((x) => Number(x.msPerImage.toFixed(3)))).toEqual([2, 0.5, 1.5]);
    // Noise that makes a longer pipeline faster is 0, not a negative cost.
    expect(ablationStages([{ stage: 'read+decode', imagesPerSec: 500 }], steps.slice(0, 2), 600, 1).stages[1]!.msPerImage).toBe(0);
  });

  it("our workers' timers: per image, what the timers did not cover is copy; fused stages are named by their ops", () => {
    const s = timerStages(
      { workerBusyMs: 100, stageMs: { read: 1, decode: 50 } },
      { workerBusyMs: 1100, stageMs: { read: 11, decode: 850, 'fused(random_horizontal_flip+to_chw)': 100 } },
      100,
    );
    expect(s).toEqual({
      method: 'timers',
      stages: [
        { stage: 'read', msPerImage: 0.1 },
        { stage: 'decode', msPerImage: 8 },
        { stage: 'flip + to CHW (fused)', msPerImage: 1 },
        { stage: 'copy', msPerImage: 0.9 },
      ],
    });
    expect(stageLabel('random_horizontal_flip')).toBe('flip');
    expect(timerStages({ workerBusyMs: 0 }, { workerBusyMs: 0 }, 10)).toBeNull();
  });
});

describe('the Python driver protocol', () => {
  it('reads its lines and ignores anything else a library prints', () => {
    expect(parseDriverLine('{"start": 3}')).toEqual({ kind: 'start', index: 3 });
    expect(parseDriverLine('{"n": 640}')).toEqual({ kind: 'progress', images: 640 });
    expect(parseDriverLine('{"point": 1, "images": 64, "seconds": 0.5, "batches": 2, "waits": [1, 2], "slices": [100, 140]}')).toEqual({
      kind: 'point',
      index: 1,
      images: 64,
      seconds: 0.5,
      batches: 2,
      waits: [1, 2],
      slices: [100, 140],
    });
    expect(parseDriverLine('{"ablation": 1, "stage": "flip", "imagesPerSec": 900}')).toEqual({
      kind: 'ablation',
      index: 1,
      stage: 'flip',
      imagesPerSec: 900,
    });
    expect(parseDriverLine('{"error": "ImportError: no ffcv"}')).toEqual({ kind: 'error', message: 'ImportError: no ffcv' });
    expect(parseDriverLine('Compiling numba functions…')).toBeNull();
    expect(parseDriverLine('{"start": "3"}')).toBeNull();
    expect(parseDriverLine('[1, 2]')).toBeNull();
  });
});

describe('a missing engine', () => {
  it('is one line naming the interpreter tried and how to get the engine', async () => {
    const a = await engineAvailability('ffcv', '/nonexistent/python3');
    expect(a.available).toBe(false);
    expect(a.reason).toMatch(/pip install ffcv/);
    expect(a.reason).toContain('/nonexistent/python3');
    expect((await engineAvailability('beton')).available).toBe(true);
  });

  it('a Python that hangs (and ignores SIGTERM) is killed with its children and is a reason, not a hang', async () => {
    const hang = join(dir, 'hanging-python');
    // Ignores SIGTERM and starts a child that would outlive it: SIGKILL to the group ends both.
    writeFileSync(hang, `#!/bin/sh\ntrap '' TERM\nsleep 60 &\necho $! > '${join(dir, 'hang-child')}'\nwait\n`);
    chmodSync(hang, 0o755);
    const a = await engineAvailability('torch', hang, { timeoutMs: 300, graceMs: 300 });
    expect(a.available).toBe(false);
    expect(a.python).toBe(hang);
    expect(a.reason).toMatch(/no answer in 0 s/);
    const child = Number(readFileSync(join(dir, 'hang-child'), 'utf8'));
    // Gone, or a zombie nobody reaps yet (PID 1 in a container may not): it no longer runs.
    const running = (): boolean => existsSync(`/proc/${child}`) && !/\) Z /.test(readFileSync(`/proc/${child}/stat`, 'utf8'));
    for (let i = 0; i < 100 && running(); i++) await new Promise((r) => setTimeout(r, 50));
    expect(running()).toBe(false);
    // Two callers at once (ffcv, same interpreter) share one check; it is cached after.
    const [b, c] = await Promise.all([
      engineAvailability('ffcv', hang, { timeoutMs: 300, graceMs: 300 }),
      engineAvailability('ffcv', hang),
    ]);
    expect(c).toBe(b);
    expect(await engineAvailability('ffcv', hang)).toBe(b);
  }, 30_000);

  it('beton profile --engine ffcv with no such Python: exit 1, one line, no stack, nothing measured', async () => {
    const file = join(dir, 'd.beton');
    const { writeImageBeton } = await import('../helpers/cli-inputs.js');
    await writeImageBeton(file, 40);
    const r = cli([
      'profile',
      file,
      '--engine',
      'beton,ffcv',
      '--python',
      '/nonexistent/python3',
      '--workers',
      '1',
      '--db',
      join(dir, 'r.db'),
    ]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/pip install ffcv/);
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(r.stdout).not.toMatch(/img\/s/);
  });

  it('usage errors: an unknown engine, --source without the torch engine', () => {
    expect(cli(['profile', 'x.beton', '--engine', 'dali']).stderr).toMatch(/--engine expects beton, ffcv or torch .*, got "dali"/);
    expect(cli(['profile', 'x.beton', '--source', dir]).stderr).toMatch(/--engine torch/);
  });
});

describe('verdicts with engines and contention', () => {
  it("diagnoses FFCV's points when FFCV was measured, comparing within that engine", () => {
    const pts = [point({ engine: 'beton', ips: 3000 }), point({ engine: 'ffcv', ips: 1000 }), point({ engine: 'torch', ips: 300 })];
    expect(verdictEngine(pts)).toBe('ffcv');
    const v = diagnose(pts, [], machine);
    expect(v.evidence[0]).toMatch(/^Best point #2 of 3 \(ffcv: 4 workers/);
    expect(verdictEngine([point({ ips: 10 })])).toBe('beton');
  });

  it('other processes above 20% of the CPUs: said first, and never decode-bound', () => {
    const quiet = diagnose([point({ ips: 1000, loaderCpu: 0.9, machineCpu: 0.97 })], [], machine);
    expect(quiet.kind).toBe('decode-bound');
    const busy = diagnose([point({ ips: 1000, loaderCpu: 0.35, machineCpu: 0.97 })], [], machine);
    expect(busy.kind).not.toBe('decode-bound');
    expect(busy.summary).toMatch(/^Other processes used 62% of the CPUs \(the loader 35%\); this measurement understates the loader\./);
    expect(busy.evidence.join('\n')).toMatch(/other processes: 62%/);
    expect(busy.evidence.join('\n')).toMatch(/Steadiness: 3 slices of 900 img\/s to 1,100 img\/s \(spread 20%\)/);
    expect(busy.advice[0]).toMatch(/^Profile again with the machine otherwise idle/);
  });
});

describe('the runs database records the engine', () => {
  it('in its own column and in the point; older points read back as they were, and compare matches engines apart', () => {
    const path = join(dir, 'runs.db');
    const db = RunsDb.open(path);
    try {
      const run = sampleRun();
      const [p0] = run.points;
      run.points = [
        {
          ...p0!,
          index: 0,
          config: { ...p0!.config, engine: 'beton' },
          stages: { method: 'timers', stages: [{ stage: 'decode', msPerImage: 1 }] },
        },
        { ...p0!, index: 1, config: { ...p0!.config, engine: 'ffcv' }, imagesPerSec: 10 },
        { ...p0!, index: 2 },
      ];
      const id = db.saveRun(run);
      const back = db.getRun(id)!;
      expect(back.points.map((p) => p.config.engine)).toEqual(['beton', 'ffcv', undefined]);
      expect(back.points[0]!.stages?.stages[0]).toEqual({ stage: 'decode', msPerImage: 1 });
      const c = db.compare(id, id);
      expect(c.rows.map((r) => r.config.engine)).toEqual(['beton', 'ffcv']);
    } finally {
      db.close();
    }
    const raw = new Database(path, { readonly: true });
    expect(raw.prepare('SELECT engine FROM points ORDER BY idx').all()).toEqual([
      { engine: 'beton' },
      { engine: 'ffcv' },
      { engine: 'beton' },
    ]);
    raw.close();
  });
});

describe('advice after a sweep that measured more workers', () => {
  it('does not ask to sweep more workers when more were measured and were slower', () => {
    const pts = [
      point({ engine: 'ffcv', workers: 1, ips: 576, waitMs: 42, cpu: 0.5, busy: 0.5 }),
      point({ engine: 'ffcv', workers: 2, ips: 259, waitMs: 96, cpu: 0.5, busy: 0.5 }),
    ];
    const v = diagnose(pts, [], { ...machine, cores: 2 });
    expect(v.advice.join('\n')).not.toMatch(/sweep workers up to/);
  });
});

describe('a Python engine that fails, hangs or is cancelled', () => {
  const fake = (body: string): string => {
    const path = join(dir, `fakepy-${Math.random().toString(36).slice(2)}`);
    writeFileSync(path, `#!/bin/sh\n${body}\n`);
    chmodSync(path, 0o755);
    return path;
  };
  const job: PythonJob = { engine: 'ffcv', warmupBatches: 1, seconds: 1, slices: 2, stageSeconds: 1, points: [{ index: 0, code: 'x' }] };

  it('fails with ENGINE_FAILED, its error and the last lines of its stderr', async () => {
    const python = fake(`cat >/dev/null; echo 'Traceback: numba exploded' >&2; echo '{"error": "RuntimeError: boom"}'; exit 1`);
    await expect(runPythonEngine({ python, job, onLine: () => undefined })).rejects.toThrow(
      /failed after 0 of 1 points: RuntimeError: boom[\s\S]*numba exploded/,
    );
  });

  it('is killed when it goes silent, and the sweep fails instead of hanging', async () => {
    const python = fake('cat >/dev/null; sleep 30');
    const t0 = Date.now();
    await expect(runPythonEngine({ python, job, onLine: () => undefined, silenceMs: 300 })).rejects.toThrow(/no output for/);
    expect(Date.now() - t0).toBeLessThan(10_000);
  });

  it('cancelling kills it and resolves', async () => {
    const python = fake('cat >/dev/null; echo \'{"ready": {}}\'; sleep 30');
    const ac = new AbortController();
    const t0 = Date.now();
    await runPythonEngine({ python, job, signal: ac.signal, onLine: (l) => l.kind === 'ready' && ac.abort() });
    expect(Date.now() - t0).toBeLessThan(10_000);
  });
});
