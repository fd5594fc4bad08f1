/**
 * End to end, issue 18 items 2 and 5: an exec run recorded by `beton profile --exec` through
 * the probe shows its verdict and its wait-per-step chart in Runs; a server killed mid-sweep
 * shows the "server stopped answering" banner at once and marks the job unknown; after a
 * restart the half-finished sweep is in Runs as interrupted with the points it finished.
 * Screenshots g2-exec-run-detail.png, g5-server-gone.png, g5-interrupted-sweep.png.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { RunsDb } from '../../core/runs/runs-db.js';
import { cli } from '../helpers/cli.js';
import { writeImageBeton } from '../helpers/cli-inputs.js';
import { requires } from '../helpers/requires.js';
import { needChromium, serveApp, shot } from './e2e-helpers.js';

/** Points recorded for the newest running sweep (the database is shared with the server, WAL). */
function recordedPoints(db: string): number {
  const runs = RunsDb.open(db);
  try {
    const sweep = runs.listRuns().find((r) => r.kind === 'sweep');
    return sweep && sweep.status === 'running' ? sweep.points : 0;
  } finally {
    runs.close();
  }
}

const HAVE_PYTHON = requires('python3', 'apt-get install -y python3', spawnSync('python3', ['--version']).status === 0);

describe.skipIf(!needChromium() || !HAVE_PYTHON)('live state and exec runs (issue 18.2, 18.5), end to end', () => {
  let execId = 0;
  const app = serveApp({
    prefix: 'beton-e2e-live-',
    args: ['--allow-exec'],
    prepare: async (tmp) => {
      await writeImageBeton(join(tmp, 'small.beton'), 48);
      // A training loop whose batches take ~30 ms to arrive and whose step computes ~10 ms.
      writeFileSync(
        join(tmp, 'train.py'),
        'import time\nfrom beton_probe import watch\ndef loader():\n    for i in range(40):\n        time.sleep(0.03)\n        yield ([0] * 8, [0] * 8)\nfor batch in watch(loader()):\n    time.sleep(0.01)\n',
      );
      const r = cli(['profile', '--exec', `python3 ${join(tmp, 'train.py')}`, '--db', join(tmp, 'runs.sqlite'), '--json', '--no-gpu'], {
        timeoutMs: 60_000,
      });
      expect(r.status, r.stderr).toBe(0);
      execId = (JSON.parse(r.stdout) as { id: number }).id;
    },
  });
  let tmp = '';
  let page: Page;
  let problems: string[];
  beforeAll(() => {
    ({ tmp, page, problems } = app);
  });

  it("an exec run's detail shows its verdict and the wait-per-step chart; Runs lists its img/s", async () => {
    await page.getByTestId('nav-runs').click();
    const row = page.locator(`[data-testid=run-row][data-id="${execId}"]`);
    await row.waitFor();
    const cells = await row.locator('td').allTextContents();
    expect(cells.join(' | ')).toMatch(/exec/);
    // Not "Points 0, Best —": no grid points, and the command's own img/s.
    expect(cells[6]).toBe('—');
    expect(cells[7]).not.toBe('—');
    await page.getByTestId(`run-open-${execId}`).click();
    const detail = page.getByTestId('run-detail');
    // Its answer (issue 27): input-bound is the bottleneck "input", the probe's words in the summary.
    const verdict = detail.getByTestId('run-answer');
    await verdict.waitFor();
    // On a shared machine other processes may hold the CPUs: the answer then says contention first, the probe's reading after it.
    expect(['input', 'contention']).toContain(await verdict.getAttribute('data-bottleneck'));
    expect(await verdict.textContent()).toMatch(/waited for data \d+% of its time/);
    const chart = detail.getByTestId('step-wait-chart');
    await chart.waitFor();
    expect(Number(await chart.getAttribute('data-count'))).toBeGreaterThan(10);
    expect(await chart.locator('.recharts-line-curve').count()).toBe(2);
    await chart.scrollIntoViewIfNeeded();
    await shot(page, 'g2-exec-run-detail');
    expect(problems).toEqual([]);
  });

  it('a training command run from the Profile screen ends with its verdict (input-bound, from the probe)', async () => {
    await page.getByTestId('nav-profile').click();
    await page.getByTestId('mode-exec').click();
    await page.getByTestId('profile-command').fill(`python3 ${join(tmp, 'train.py')}`);
    await page.getByTestId('profile-start').click();
    const verdict = page.getByTestId('exec-verdict');
    await verdict.waitFor({ timeout: 60_000 });
    expect(await verdict.getAttribute('data-kind')).toBe('input-bound');
    // Finished: no stale "now N img/s": the answer's best (issue 27: the one number every surface shows).
    expect(await page.getByTestId('profile-rate').textContent()).toMatch(/^best [\d,.]+k? img\/s \(your command\)$/);
    expect(problems).toEqual([]);
  });

  it('a server killed mid-sweep: the banner at once, the job unknown; after a restart the sweep is in Runs as interrupted', async () => {
    await page.getByTestId('nav-profile').click();
    await page.getByTestId('mode-grid').click();
    await page.getByTestId('profile-file').fill(join(tmp, 'small.beton'));
    await page.getByTestId('profile-workers').fill('1, 2, 1, 2, 1, 2, 1, 2');
    await page.getByTestId('profile-batch').fill('8');
    await page.getByTestId('profile-seconds').fill('2');
    await page.getByTestId('profile-warmup').fill('1');
    await page.getByTestId('profile-start').click();
    // Once the first point is measured (and recorded), the server dies without a word.
    // (Read from the runs database, which records each point as it is measured: the page is
    // slow to query while the sweep saturates a small machine.)
    const deadline = Date.now() + 120_000;
    while (recordedPoints(app.db) < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(recordedPoints(app.db)).toBeGreaterThanOrEqual(1);
    const killedAt = Date.now();
    app.kill();
    await page.getByTestId('server-gone').waitFor({ timeout: 10_000 });
    expect(Date.now() - killedAt).toBeLessThan(10_000);
    await page.locator('[data-testid=profile-status][data-status=unknown]').waitFor({ timeout: 5_000 });
    expect(await page.getByTestId('profile-unknown').textContent()).toMatch(/connection to the server was lost/);
    await shot(page, 'g5-server-gone');

    // A new server on the same folder and runs database (a new port and token: a new page).
    await app.restart();
    await page.getByTestId('nav-runs').click();
    // The sweep's record stopped getting heartbeats when the server died: it reads as interrupted.
    const sweepRow = page.locator('[data-testid=run-row]').filter({ hasText: 'sweep' }).first();
    for (let i = 0; i < 40; i++) {
      await sweepRow.waitFor();
      if ((await sweepRow.locator('.status').textContent()) === 'interrupted') break;
      await page.waitForTimeout(1000);
      await page.reload();
      await page.getByTestId('nav-runs').click();
    }
    expect(await sweepRow.locator('.status').textContent()).toBe('interrupted');
    const points = Number((await sweepRow.locator('td').allTextContents())[6]);
    expect(points).toBeGreaterThanOrEqual(1);
    expect(points).toBeLessThan(8);
    const id = await sweepRow.getAttribute('data-id');
    await page.getByTestId(`run-open-${id}`).click();
    await page.getByTestId('run-interrupted').waitFor();
    expect(await page.getByTestId('run-interrupted').textContent()).toMatch(/What it finished is kept: \d+ points?/);
    await shot(page, 'g5-interrupted-sweep');
  }, 240_000);
});
