// A sweep while CPU hogs hold the other cores (issue 18): the verdict must say so first and
// not blame decoding. The hogs are bounded by `timeout` and killed in afterAll.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { profile } from '../../core/profile/sweep/sweep.js';
import { writeImageBeton } from '../helpers/cli-inputs.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-contention-'));
const file = join(dir, 'd.beton');
/** Process-group ids of the hogs (each its own session: `setsid`). */
const hogs: number[] = [];
afterAll(() => {
  for (const pgid of hogs) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // already gone (its timeout ended it)
    }
  }
  rmSync(dir, { recursive: true, force: true });
});
beforeAll(async () => {
  await writeImageBeton(file, 400, { width: 96, height: 80, writeMode: 'jpg' });
});

describe('contention', () => {
  it('a sweep while CPU hogs hold the other cores: the verdict names contention first and is not decode-bound', async () => {
    // One worker for the loader, a hog on every other core: others take ≥ 1/cores of the machine (50% on 2 cores).
    // The hogs must be *other* processes: the profiler counts its own process tree (children
    // included) as the loader, so each hog is started by a shell that exits at once, leaving it
    // re-parented away from this process (and in its own session, so afterAll can end it).
    for (let i = 0; i < Math.max(1, availableParallelism() - 1); i++) {
      const pid = execFileSync(
        'sh',
        ['-c', `setsid timeout -k 5 120 "$0" -e 'for (;;) {}' </dev/null >/dev/null 2>&1 & echo $!`, process.execPath],
        {
          encoding: 'utf8',
        },
      );
      hogs.push(Number(pid.trim()));
    }
    const run = await profile(
      { file, workers: [1], batchSizes: [16], decoder: 'rrc:64', secondsPerPoint: 2, warmupBatches: 1 },
      { gpu: false },
    );
    const p = run.points[0]!;
    expect(p.loaderCpu).not.toBeNull();
    expect(p.machineCpu! - p.loaderCpu!).toBeGreaterThan(0.2);
    expect(run.verdict?.summary).toMatch(
      /^Other processes used \d+% of the CPUs \(the loader \d+(\.\d)?%\); this measurement understates the loader\./,
    );
    expect(run.verdict?.kind).not.toBe('decode-bound');
    expect(p.slices!.length).toBeGreaterThanOrEqual(2);
    // Our workers time each stage: decode is where a JPEG's time goes.
    expect(p.stages?.method).toBe('timers');
    expect(p.stages!.stages.find((s) => s.stage === 'decode')!.msPerImage).toBeGreaterThan(0);
  }, 120_000);
});
