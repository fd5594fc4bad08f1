/**
 * End to end, issue 14 feature 4 and the chart part of defect 6: a sweep run from the app
 * against `beton serve` with the fake nvidia-smi on PATH charts the loader's wait per step,
 * the loader process's CPU next to the machine's and GPU utilisation, each timeline with its
 * grid points shaded and named; every chart has a y-axis title with its unit, and no legend
 * overlaps an axis title. Screenshots f4-profile-charts.png and d6-chart-legends.png.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { fakeGpuPaths, type FakeGpuPaths } from '../profile/profile-fake-gpu.js';
import { needChromium, ROOT, serveApp, shot } from './e2e-helpers.js';

type Box = { x: number; y: number; width: number; height: number };
const overlaps = (a: Box, b: Box): boolean => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

describe.skipIf(!needChromium())('profile charts that explain (issue 14.4, 14.6 charts), end to end', () => {
  let gpu: FakeGpuPaths | undefined;
  const app = serveApp({
    prefix: 'beton-e2e-charts-',
    images: true,
    prepare: (dir) => {
      execFileSync(process.execPath, [join(ROOT, 'bin/beton.js'), 'build', join(dir, 'images'), '-o', join(dir, 'images.beton')], {
        stdio: 'pipe',
      });
      gpu = fakeGpuPaths();
    },
    env: () => ({ PATH: gpu!.withFake }),
    cleanup: () => gpu?.cleanup(),
  });
  const { problems } = app;
  let tmp: string;
  let page: Page;
  beforeAll(() => {
    ({ tmp, page } = app);
  });

  it('a sweep charts wait per step, loader vs machine CPU and GPU use, with its grid points on the timelines', async () => {
    await page.getByTestId('nav-profile').click();
    await page.getByTestId('mode-grid').click();
    await page.getByTestId('profile-file').fill(join(tmp, 'images.beton'));
    await page.getByTestId('profile-workers').fill('1, 2');
    await page.getByTestId('profile-batch').fill('4');
    await page.getByTestId('profile-seconds').fill('1.5');
    await page.getByTestId('profile-warmup').fill('1');
    // Start stays off while the form is invalid or the page offline: if it does not come on,
    // say why (a whole-suite run once saw it off for 60 s, not reproduced alone).
    const start = page.getByTestId('profile-start');
    await start.waitFor();
    for (let i = 0; i < 120 && (await start.isDisabled()); i++) await page.waitForTimeout(250);
    if (await start.isDisabled()) {
      const connection = await page.getByTestId('connection').getAttribute('data-state');
      const notes = await page.locator('.field-error, [role=alert], .banner').allTextContents();
      throw new Error(`Start profiling stayed off for 30 s: connection ${connection}; ${notes.join(' | ') || 'no error shown'}`);
    }
    await start.click();
    await page.getByTestId('verdict').waitFor({ timeout: 120_000 });
    const charts = page.getByTestId('profile-charts');
    // Two points measured: two shaded, named stretches on each timeline.
    for (const id of ['chart-timeline', 'chart-wait', 'chart-process-cpu', 'chart-gpu']) {
      const c = charts.getByTestId(id);
      expect(Number(await c.getAttribute('data-count')), id).toBeGreaterThan(0);
      expect(await c.locator('.recharts-reference-area').count(), id).toBe(2);
      // Full names, or the points' numbers when a stretch is under 15% of the timeline
      // (Charts.tsx: on a loaded machine a point's start-up gap widens the range).
      const labels = await c.locator('.recharts-label').allTextContents();
      const full = labels.filter((l) => l.includes('· bs'));
      if (full.length > 0) expect(full, id).toEqual(['1w · bs 4', '2w · bs 4']);
      else
        expect(
          labels.filter((l) => /^#\d+$/.test(l)),
          id,
        ).toEqual(['#1', '#2']);
    }
    // Our readings, and each point's median (dashed; issue 27: the wait of every engine).
    expect(await charts.getByTestId('chart-wait').locator('.recharts-line-curve').count()).toBe(2);
    expect((await charts.getByTestId('chart-process-cpu').locator('.recharts-legend-item-text').allTextContents()).sort()).toEqual([
      'loader process',
      'machine (all processes)',
    ]);
    // The fake nvidia-smi reports two GPUs.
    expect((await charts.getByTestId('chart-gpu').locator('.recharts-legend-item-text').allTextContents()).sort()).toEqual([
      'GPU 0',
      'GPU 1',
    ]);
    await charts.scrollIntoViewIfNeeded();
    await shot(page, 'f4-profile-charts');
  });

  it('every chart has a y-axis title with its unit, and no legend overlaps an axis title or tick', async () => {
    const charts = page.getByTestId('profile-charts');
    const want: Record<string, string> = {
      'chart-timeline': 'images/s',
      'chart-wait': 'wait per step (ms)',
      'chart-process-cpu': 'CPU busy (%)',
      'chart-gpu': 'GPU busy (%)',
      'chart-cpu': 'busy (%)',
    };
    for (const [id, title] of Object.entries(want)) {
      const c = charts.getByTestId(id);
      // The y title: that text, turned along the axis, left of the plot.
      const yTitle = c.locator('text.recharts-label').filter({ hasText: new RegExp(`^${title.replace(/[()]/g, '\\$&')}$`) });
      expect(await yTitle.count(), id).toBe(1);
      expect(await yTitle.getAttribute('transform'), id).toMatch(/rotate\(-90/);
      const items = await c.locator('.recharts-legend-item').evaluateAll((els) =>
        els.map((e) => {
          const r = e.getBoundingClientRect();
          return { x: r.x, y: r.y, width: r.width, height: r.height };
        }),
      );
      if (id === 'chart-process-cpu' || id === 'chart-gpu') expect(items.length, id).toBe(2);
      const others = await c.locator('text.recharts-label, .recharts-cartesian-axis-tick-value').evaluateAll((els) =>
        els.map((e) => {
          const r = e.getBoundingClientRect();
          return { x: r.x, y: r.y, width: r.width, height: r.height, text: e.textContent };
        }),
      );
      for (const lb of items)
        for (const box of others)
          expect(overlaps(lb, box), `${id}: legend item ${JSON.stringify(lb)} over ${JSON.stringify(box)}`).toBe(false);
    }
    await charts.getByTestId('chart-process-cpu').scrollIntoViewIfNeeded();
    await charts.getByTestId('chart-process-cpu').screenshot({ path: join(ROOT, 'test-output/screenshots/d6-chart-legends.png') });
    expect(problems).toEqual([]);
  });
});
