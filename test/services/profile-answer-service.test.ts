// The service's side of issue 27: a training-command sweep through profiles.start (its
// finished result carries the answer runs.get returns), progress messages that say what runs,
// the plan's `python` behind the spawn gate, and `beton serve --python` checked at start.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ApiEvent, ProgressEvent } from '../../core/api/contract.js';
import type { ExecOutcome } from '../../core/api/job-results.js';
import type { ProfileRun } from '../../core/api/profile-model.js';
import { BetonService } from '../../core/services/beton-service.js';
import { ROOT, cli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-answer-service-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const script = join(dir, 'grid.py');
writeFileSync(
  script,
  `import sys, time
sys.path.insert(0, ${JSON.stringify(join(ROOT, 'python'))})
from beton_probe import watch
w = int(sys.argv[1])
def batches():
    for _ in range(30):
        if w == 1:
            time.sleep(0.04)
        yield [0] * 16
for b in watch(batches(), batch_size=16):
    time.sleep(0.025)
`,
);

describe('profiles.start: answers, training-command sweeps, the interpreter', () => {
  it('a training-command sweep runs each grid point and its result carries the answer runs.get returns', async () => {
    const service = new BetonService({ roots: [dir], host: 'server', dbPath: join(dir, 'runs.sqlite'), allowExec: true });
    try {
      const events: ApiEvent[] = [];
      const off = service.on((e) => events.push(e));
      const started = await service.call('profiles.start', { exec: { command: `python3 ${script} {workers}`, workers: [1, 2] } });
      expect(started.ok, JSON.stringify(started)).toBe(true);
      const end = Date.now() + 90_000;
      let finished: ApiEvent | undefined;
      while (!(finished = events.find((e) => e.event === 'jobs:finished')) && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
      off();
      expect(finished).toBeDefined();
      const data = finished!.data as { status: string; result: ExecOutcome };
      expect(data.status).toBe('ok');
      const messages = events.flatMap((e) => (e.event === 'jobs:progress' ? [(e.data as ProgressEvent).message ?? ''] : []));
      expect(messages.some((m) => m.startsWith('running point 1 of 2: 1 worker'))).toBe(true);
      expect(messages.some((m) => m.startsWith('running point 2 of 2: 2 workers'))).toBe(true);
      const answer = data.result.answer!;
      expect(answer.engine).toBe('exec');
      expect(answer.best.point).toBe(1);
      const got = (await service.call('runs.get', { id: data.result.runId })) as { ok: true; value: ProfileRun };
      expect(got.value.answer).toEqual(answer);
      expect(got.value.points.map((p) => p.exec!.command)).toEqual([`python3 ${script} 1`, `python3 ${script} 2`]);
    } finally {
      service.close();
    }
  }, 120_000);

  it('a plan naming a Python interpreter is refused where commands are off (the spawn gate)', async () => {
    const service = new BetonService({ roots: [dir], host: 'server', dbPath: join(dir, 'runs2.sqlite') });
    try {
      const r = await service.call('profiles.start', {
        plan: { file: join(dir, 'x.beton'), engines: ['ffcv'], python: '/usr/bin/python3' },
      });
      expect(r.ok).toBe(false);
      expect(!r.ok && r.error.code).toBe('EXEC_DISABLED');
      expect(!r.ok && r.error.message).toMatch(/^plan\.python: /);
    } finally {
      service.close();
    }
  });

  it('beton serve --python checks the interpreter by running it: a wrong one is a usage error, exit 2, no trace', () => {
    const r = cli(['serve', dir, '--python', join(dir, 'no-such-python'), '--port', '0'], { timeoutMs: 30_000 });
    expect(r.status).toBe(2);
    expect(r.stderr.split('\n')[0]).toMatch(/^beton serve: --python .*no-such-python: it does not run Python/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
