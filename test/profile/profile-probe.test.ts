// Issue 18 item 2: inside the training step. A Python script using beton_probe.watch, run
// through `beton profile --exec`, reports each step's wait for data; the stored run gets a
// real verdict (input-bound / balanced / compute-bound with the wait share). The probe is
// silent outside beton.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RunsDb } from '../../core/runs/runs-db.js';
import { cli } from '../helpers/cli.js';
import { requires } from '../helpers/requires.js';

const PROBE_DIR = resolve(import.meta.dirname, '../../python');
const dir = mkdtempSync(join(tmpdir(), 'beton-probe-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const python = requires('python3', 'apt-get install -y python3', spawnSync('python3', ['--version']).status === 0);

/**
 * A "training loop": each batch takes waitMs to arrive, each step computes computeMs (sleeps).
 * No sleep at all for a batch that arrives at once: sleep(0) gives the core away, and on a
 * loaded machine getting it back took milliseconds, a wait share of 10% in a CI run.
 */
function trainScript(name: string, waitMs: number, computeMs: number, steps = 40): string {
  const file = join(dir, `${name}.py`);
  writeFileSync(
    file,
    `import time
from beton_probe import watch

def loader():
    for i in range(${steps}):
        ${waitMs > 0 ? `time.sleep(${waitMs / 1000})` : 'pass'}
        yield ([0] * 8, [0] * 8)

for batch in watch(loader()):
    time.sleep(${computeMs / 1000})
`,
  );
  return file;
}

function profileExec(script: string, db: string) {
  const r = cli(['profile', '--exec', `python3 ${script}`, '--db', db, '--json', '--no-gpu'], { timeoutMs: 60_000 });
  expect(r.status, r.stderr).toBe(0);
  const out = JSON.parse(r.stdout) as { id: number };
  const stored = RunsDb.open(db);
  try {
    return { run: stored.getRun(out.id)!, summary: stored.getSummary(out.id)!, stderr: r.stderr };
  } finally {
    stored.close();
  }
}

describe.skipIf(!python)('beton_probe under beton profile --exec', () => {
  it('a step that waits ~30 ms for data and computes ~10 ms is input-bound, with a 65–85% wait share', () => {
    const { run, summary, stderr } = profileExec(trainScript('input', 30, 10), join(dir, 'a.sqlite'));
    expect(run.verdict?.kind).toBe('input-bound');
    const m = run.verdict!.exec!;
    expect(m.waitShare).toBeGreaterThanOrEqual(0.65);
    expect(m.waitShare).toBeLessThanOrEqual(0.85);
    expect(m.steps).toBe(40);
    expect(m.waitP50Ms).toBeGreaterThan(20);
    expect(m.stepsPerSec).toBeGreaterThan(0);
    expect(m.imagesPerSec).toBeGreaterThan(0);
    expect(m.series.length).toBeGreaterThan(0);
    expect(run.verdict!.summary).toMatch(/^Input-bound: the training step waited for data \d+% of its time/);
    // Runs lists its img/s; the step lines went to the probe's pipe, not the terminal.
    expect(summary.bestImagesPerSec).toBeCloseTo(m.imagesPerSec!, 6);
    expect(stderr).not.toMatch(/"wait_ms"/);
    // The wait per step is on the samples too (the live chart).
    expect(run.samples.some((s) => (s.waitMsPerStep ?? 0) > 0)).toBe(true);
  });

  it('a step that computes ~30 ms and never waits is compute-bound', () => {
    const { run } = profileExec(trainScript('compute', 0, 30), join(dir, 'b.sqlite'));
    expect(run.verdict?.kind).toBe('compute-bound');
    expect(run.verdict!.exec!.waitShare).toBeLessThan(0.05);
  });

  it('images without step timing: throughput, and a verdict that says what it could not know', () => {
    const file = join(dir, 'counts.py');
    writeFileSync(
      file,
      'import json, sys, time\nfor n in range(1, 30):\n    time.sleep(0.02)\n    print(json.dumps({"step": n, "images": n * 8}), file=sys.stderr, flush=True)\n',
    );
    const { run, summary } = profileExec(file, join(dir, 'c.sqlite'));
    expect(run.verdict).not.toBeNull();
    expect(run.verdict!.exec!.waitShare).toBeNull();
    expect(run.verdict!.exec!.imagesPerSec).toBeGreaterThan(0);
    expect(run.verdict!.summary).toMatch(/Whether the step waits for data is not known/);
    expect(run.verdict!.evidence.join(' ')).toMatch(/beton_probe/);
    expect(summary.bestImagesPerSec).toBeGreaterThan(0);
  });

  it('is silent outside beton: same items, nothing printed', () => {
    const r = spawnSync('python3', ['-c', 'from beton_probe import watch\nprint(list(watch(iter([1, 2, 3]))))'], {
      encoding: 'utf8',
      env: { ...process.env, PYTHONPATH: PROBE_DIR, BETON_PROBE: '' },
      timeout: 20_000,
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe('[1, 2, 3]\n');
    expect(r.stderr).toBe('');
  });

  it('under BETON_PROBE without a pipe it writes exactly the four keys to stderr', () => {
    const r = spawnSync('python3', ['-c', 'from beton_probe import watch\nfor x in watch([([1, 2], 0), ([3, 4], 1)]): pass'], {
      encoding: 'utf8',
      env: { ...process.env, PYTHONPATH: PROBE_DIR, BETON_PROBE: '1', BETON_PROBE_FD: '' },
      timeout: 20_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, number>);
    expect(lines.map((l) => Object.keys(l))).toEqual([
      ['step', 'images', 'wait_ms', 'step_ms'],
      ['step', 'images', 'wait_ms', 'step_ms'],
    ]);
    expect(lines.map((l) => [l.step, l.images])).toEqual([
      [1, 2],
      [2, 4],
    ]);
  });
});

describe.skipIf(!python)('beton_probe step boundaries', () => {
  it('one step per item, from asking for it to asking for the next; a loop left with break still reports its last step', () => {
    const r = spawnSync(
      'python3',
      [
        '-c',
        'import time\nfrom beton_probe import watch\nfor epoch in range(2):\n    for x in watch([([0] * 4,)] * 3):\n        time.sleep(0.02)\nfor x in watch([([0] * 4,)] * 5):\n    time.sleep(0.02)\n    break\n',
      ],
      { encoding: 'utf8', env: { ...process.env, PYTHONPATH: PROBE_DIR, BETON_PROBE: '1', BETON_PROBE_FD: '' }, timeout: 20_000 },
    );
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { step: number; images: number; wait_ms: number; step_ms: number });
    expect(lines.map((l) => [l.step, l.images])).toEqual([
      [1, 4],
      [2, 8],
      [3, 12],
      [1, 4],
      [2, 8],
      [3, 12],
      [1, 4],
    ]);
    // Every step holds its 20 ms of work (the last of each epoch and the one left by break too).
    for (const l of lines) expect(l.step_ms).toBeGreaterThanOrEqual(15);
  });
});
