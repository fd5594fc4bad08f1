/**
 * End to end, issue 14: what the app shows must agree with what happened. `beton serve
 * --allow-exec` on a temp folder with the sample images and a runs database seeded with two
 * runs, driven in headless Chromium. Screenshots land in test-output/screenshots/ as
 * truthful-*.png.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PointResult, ProfileRun } from '../../core/api/profile-model.js';
import { RunsDb } from '../../core/runs/runs-db.js';
import { needChromium, ROOT, serveApp, shot } from './e2e-helpers.js';

/** A stored sweep of one point at `ips` images/s over a dataset of the given content. */
function seededRun(startedAt: string, ips: number): ProfileRun {
  const point: PointResult = {
    index: 0,
    config: { workers: 2, batchSize: 64, order: 'random', osCache: true },
    images: ips * 3,
    seconds: 3,
    imagesPerSec: ips,
    batchesPerSec: ips / 64,
    waitP50Ms: 5,
    waitP95Ms: 9,
    workerBusyMsPerBatch: 40,
    cpuPerCore: [0.5, 0.5],
    rssPeakBytes: 1e8,
    diskReadBytes: 0,
    pageCacheResident: 1,
    gpuUtilMean: null,
  };
  return {
    kind: 'sweep',
    startedAt,
    finishedAt: startedAt,
    status: 'ok',
    plan: {
      file: '/data/train.beton',
      workers: [2],
      batchSizes: [64],
      orders: ['random'],
      osCache: [true],
      decoder: 'rrc:160',
      flip: true,
      secondsPerPoint: 3,
      warmupBatches: 2,
    },
    machine: { hostname: 'box', cpuModel: 'CPU', cores: 2, ramBytes: 2 ** 33, os: 'Linux', node: 'v20', gpus: [] },
    dataset: {
      path: '/data/train.beton',
      sizeBytes: 1e6,
      headerSha256: 'ab'.repeat(32),
      contentSha256: 'cd'.repeat(32),
      numSamples: 1000,
      schema: [{ name: 'image', type: 'rgb_image', typeId: 2 }],
    },
    points: [point],
    samples: [],
    verdict: null,
  };
}

describe.skipIf(!needChromium())('the app tells the truth (issue 14), end to end', () => {
  const ids: number[] = [];
  const app = serveApp({
    prefix: 'beton-e2e14-',
    images: true,
    args: ['--allow-exec'],
    prepare: (dir) => {
      const db = RunsDb.open(join(dir, 'runs.sqlite'));
      ids.push(db.saveRun(seededRun('2025-01-01T10:00:00.000Z', 1000)), db.saveRun(seededRun('2025-01-02T10:00:00.000Z', 1000 / 3.26)));
      db.close();
    },
  });
  const { problems } = app;
  let page: Page;
  let tmp: string;
  beforeAll(async () => {
    ({ page, tmp } = app);
    await page.getByTestId('env-info').waitFor();
  });

  it('Runs: a run 3.26× slower says "B is 3.26× slower than A", in the colour of worse, whichever is ticked first', async () => {
    const [older, newer] = ids as [number, number];
    await page.getByTestId('nav-runs').click();
    // The slower, newer run ticked first: the old screen then showed a green, directionless "3.26×".
    await page.getByTestId(`run-select-${newer}`).check();
    await page.getByTestId(`run-select-${older}`).check();
    await page.getByTestId('compare-table').waitFor();
    expect(await page.getByTestId('compare-table').locator('h3').textContent()).toBe(`Run ${newer} (B) against run ${older} (A)`);
    const best = page.getByTestId('compare-best');
    expect(await best.textContent()).toBe('Best point: B is 3.26× slower than A.');
    expect(await best.getAttribute('data-direction')).toBe('slower');
    const cell = page.getByTestId('compare-change').first();
    expect(await cell.textContent()).toBe('B is 3.26× slower than A');
    // Red (the theme's danger colour), not green. Evaluated as page scripts: this tsconfig has no DOM types.
    const colour = await cell.evaluate(
      (el) => (globalThis as unknown as { getComputedStyle(e: unknown): { color: string } }).getComputedStyle(el).color,
    );
    const rgb = await page.evaluate(`(() => {
      const probe = document.createElement('span');
      probe.style.color = getComputedStyle(document.documentElement).getPropertyValue('--danger').trim();
      document.body.append(probe);
      const out = getComputedStyle(probe).color;
      probe.remove();
      return out;
    })()`);
    expect(colour).toBe(rgb);
    expect(await page.getByTestId('compare-dataset').textContent()).toBe('same dataset (content cdcdcdcdcdcd…)');
    await shot(page, 'truthful-runs-compare');
  });

  it('Profile: a training command that exits 127 shows Failed with the exit code and its stderr, and Runs lists it failed', async () => {
    await page.getByTestId('nav-profile').click();
    await page.getByTestId('mode-exec').click();
    await page.getByTestId('profile-command').fill('nosuchcmd-issue14 --epochs 1');
    await page.getByTestId('profile-start').click();
    await page.locator('[data-testid=profile-status][data-status=failed]').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('profile-status').locator('.status').textContent()).toBe('Failed');
    expect(await page.getByTestId('profile-error').getAttribute('data-code')).toBe('EXEC_FAILED');
    expect(await page.getByTestId('profile-error').textContent()).toContain('the command exited with code 127 (command not found)');
    expect(await page.getByTestId('exec-result').locator('h3').textContent()).toBe('Command failed');
    expect(await page.getByTestId('exec-exit-code').textContent()).toBe('127');
    expect(await page.getByTestId('exec-stderr').textContent()).toMatch(/nosuchcmd-issue14.*not found/);
    await shot(page, 'truthful-exec-failed');
    await page.getByTestId('nav-runs').click();
    const row = page.locator('[data-testid=run-row]').filter({ hasText: 'exec' }).first();
    await row.waitFor();
    expect(await row.locator('.status').textContent()).toBe('failed');
    expect(await row.getByTestId('run-failure').textContent()).toBe('the command exited with code 127 (command not found)');
    await shot(page, 'truthful-runs-failed');
  });

  it('Profile: cancelling a command finishes (Cancelled, not "Cancelling…")', async () => {
    await page.getByTestId('nav-profile').click();
    await page.getByTestId('profile-command').fill('sleep 60');
    await page.getByTestId('profile-start').click();
    await page.locator('[data-testid=profile-status][data-status=running]').waitFor();
    await page.getByTestId('profile-cancel').click();
    await page.locator('[data-testid=profile-status][data-status=cancelled]').waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('profile-cancel').count()).toBe(0);
  });

  it('the sidebar shows the package version (not v0.0.0)', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(await page.getByTestId('env-info').textContent()).toContain(`beton serve · v${pkg.version}`);
  });

  it('Sources: the file browser shows an absolute path as written ("/tmp/…", not "tmp/…/")', async () => {
    await page.getByTestId('nav-sources').click();
    await page.getByTestId('source-path-browse').click();
    // By class, not a test id: the check is about how the path is drawn, before and after the fix.
    const path = page.locator('[data-testid=file-browser] .browser-path');
    await page.locator('[data-testid=browser-choose-dir][data-name=images]').waitFor();
    expect(await path.getAttribute('title')).toBe(tmp);
    // Where the first characters are drawn: "/" must be left of "t" (an RTL box drew it at the right end).
    const [slash, next] = (await path.evaluate(`(() => {
      const walker = document.createTreeWalker(document.querySelector('[data-testid=file-browser] .browser-path'), NodeFilter.SHOW_TEXT);
      const node = walker.nextNode();
      const x = (i) => { const r = document.createRange(); r.setStart(node, i); r.setEnd(node, i + 1); return r.getBoundingClientRect().left; };
      return [x(0), x(1)];
    })()`)) as [number, number];
    expect(slash).toBeLessThan(next);
    await shot(page, 'truthful-browser');
  });

  it('Build: the compression ratio compares the source images with the file (not "—" or 0.00×)', async () => {
    await page.locator('[data-testid=browser-choose-dir][data-name=images]').click();
    await page.getByTestId('schema-table').waitFor();
    await page.getByTestId('workers-input').fill('1');
    await page.getByTestId('build-button').click();
    await page.getByTestId('build-report').waitFor();
    const ratio = (await page.getByTestId('report-ratio').textContent())!;
    // "0.056×: the file is 17.87× its 917 KiB of sources" (48 small images in one 8 MiB page), or "3.20× (… of sources)".
    const m = /^(\d+(?:\.\d+)?)×(?:: the file is [\d.]+× its | \()([\d.]+) (KiB|MiB|GiB) of sources/.exec(ratio);
    expect(m, ratio).not.toBeNull();
    expect(Number(m![1])).toBeGreaterThan(0.01);
    expect(Number(m![2])).toBeGreaterThan(0);
    // The rate beside the chart is a windowed rate, the chart's own definition; the report says "Average speed".
    expect(await page.getByTestId('build-report').getByText('Average speed').count()).toBe(1);
    expect(await page.getByTestId('build-status').getByText('Rate (last second)').count()).toBe(1);
    await shot(page, 'truthful-build');
  });

  it('Dataset: "Go to sample 47" shows the page holding it (24–47 of 48) with 47 marked, not a one-item page', async () => {
    await page.getByTestId('open-in-dataset').click();
    await page.locator('[data-testid=thumb] img').first().waitFor();
    await page.getByLabel('Sample index').fill('47');
    await page.getByRole('button', { name: 'Go', exact: true }).click();
    await page.getByText('24–47 of 48').waitFor();
    await page.locator('[data-testid=thumb-grid][aria-busy=false]').waitFor();
    expect(await page.getByTestId('thumb').count()).toBe(24);
    expect(await page.locator('[data-testid=thumb][data-focus=true] .thumb-index').textContent()).toBe('#47');
    await shot(page, 'truthful-dataset-goto');
  });

  it('logged no page errors or console errors', () => {
    expect(problems).toEqual([]);
  });
});
