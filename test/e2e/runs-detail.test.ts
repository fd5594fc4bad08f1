/**
 * End to end, issue 14 feature 2: a run in full (every setting, the evidence behind the
 * verdict, the timelines with their grid points, the points) and two runs side by side (a
 * settings diff marking only what differs, direction-explicit ratios coloured by better and
 * worse). `beton serve` over a runs database seeded with two sweeps that differ in
 * batches-ahead and speed; screenshots f2-run-detail.png and f2-side-by-side.png.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ProfileRun, TelemetrySample } from '../../core/api/profile-model.js';
import { RunsDb } from '../../core/runs/runs-db.js';
import { seedSample, seedSweep } from '../helpers/seeded-runs.js';
import { needChromium, serveApp, shot } from './e2e-helpers.js';

/** Two points of 2 s each, sampled every 250 ms, with the readings the charts show. */
function samples(ips: number[]): TelemetrySample[] {
  const out: TelemetrySample[] = [];
  let t = 0;
  ips.forEach((rate, p) => {
    // A start-up reading between points: no point, an idle loader.
    out.push(seedSample(t, p, rate, { point: null, imagesPerSec: null, cpuPerCore: [0.3, 0.2], processCpu: 0.1, waitMsPerStep: null }));
    t += 250;
    for (let k = 0; k < 8; k++, t += 250) {
      out.push(seedSample(t, p, rate * (0.95 + (0.1 * ((k * 7) % 3)) / 2), { processCpu: 0.55 + k / 100, waitMsPerStep: 64_000 / rate }));
    }
  });
  return out;
}

function run(startedAt: string, speed: number, batchesAhead: number | undefined, host: string): ProfileRun {
  const rates = [600 * speed, 1000 * speed];
  return seedSweep({
    startedAt,
    finishedAt: startedAt.replace('10:00:00', '10:00:09'),
    workers: [1, 2],
    rates,
    ...(batchesAhead ? { batchesAhead } : {}),
    machine: { hostname: host, cpuModel: 'Test CPU @ 3 GHz', cores: 2, ramBytes: 2 ** 34, os: 'Linux 6.1', node: 'v20.19.0', gpus: [] },
    samples: samples(rates),
    verdict: {
      kind: 'input-bound',
      summary: `The loader delivers ${Math.round(rates[1]!)} images/s with 2 workers; the consumer waits for most batches.`,
      evidence: [`wait per batch p50 ${(32_000 / rates[1]!).toFixed(1)} ms at 2 workers`, 'CPU 75% busy across 2 cores'],
      advice: ['Add workers if cores are free.'],
    },
  });
}

describe.skipIf(!needChromium())('run detail and side-by-side comparison (issue 14.2), end to end', () => {
  const ids: number[] = [];
  const app = serveApp({
    prefix: 'beton-e2e-runs-',
    prepare: (dir) => {
      const db = RunsDb.open(join(dir, 'runs.sqlite'));
      // A is the older and faster; B runs 3.26x slower with batchesAhead 8 on another host.
      ids.push(
        db.saveRun(run('2025-03-01T10:00:00.000Z', 1, undefined, 'box-a')),
        db.saveRun(run('2025-03-02T10:00:00.000Z', 1 / 3.26, 8, 'box-b')),
      );
      db.close();
    },
  });
  const { problems } = app;
  let page: Page;
  beforeAll(async () => {
    ({ page } = app);
    await page.getByTestId('nav-runs').click();
    await page.getByTestId('run-row').first().waitFor();
  });

  it('shows one run in full: every setting, the evidence, the timelines with grid points, the points', async () => {
    const [a] = ids;
    await page.getByTestId(`run-open-${a}`).click();
    const detail = page.getByTestId('run-detail');
    await detail.waitFor();
    expect(await detail.getAttribute('data-id')).toBe(String(a));
    const settings = detail.getByTestId('run-settings');
    for (const [key, value] of [
      ['plan.workers', '1, 2'],
      ['plan.decoder', 'rrc:160'],
      ['plan.osCache', 'OS page cache'],
      ['plan.batchesAhead', '3 (default)'],
      ['plan.secondsPerPoint', '2'],
      ['machine.hostname', 'box-a'],
      ['machine.cpuModel', 'Test CPU @ 3 GHz'],
      ['dataset.numSamples', '10000'],
      ['dataset.content', 'cdcdcdcdcdcd…'],
    ]) {
      expect(await settings.locator(`tr[data-key="${key}"] .setting-value`).textContent(), key).toBe(value);
    }
    expect(await detail.getByTestId('run-verdict').getAttribute('data-kind')).toBe('input-bound');
    expect(await detail.getByTestId('run-verdict-evidence').locator('li').allTextContents()).toEqual([
      'wait per batch p50 32.0 ms at 2 workers',
      'CPU 75% busy across 2 cores',
    ]);
    expect(await detail.getByTestId('run-points').locator('tbody tr').count()).toBe(2);
    // A run recorded before answers has no answer.best: no row is called best (the renderer computes no second best, issue 27).
    expect(await detail.getByTestId('run-points').locator('tr.is-best').count()).toBe(0);
    // Timelines: one shaded, named stretch per grid point, on every timeline.
    const timeline = detail.getByTestId('chart-timeline');
    expect(Number(await timeline.getAttribute('data-count'))).toBe(16);
    expect(await timeline.locator('.recharts-reference-area').count()).toBe(2);
    const labels = await timeline.locator('.recharts-label').allTextContents();
    expect(labels.filter((l) => l.includes('· bs'))).toEqual(['1w · bs 64', '2w · bs 64']);
    expect(labels).toContain('images/s'); // the y axis's title, with its unit
    expect(Number(await detail.getByTestId('chart-wait').getAttribute('data-count'))).toBe(16);
    expect((await detail.getByTestId('chart-process-cpu').locator('.recharts-legend-item-text').allTextContents()).sort()).toEqual([
      'loader process',
      'machine (all processes)',
    ]);
    await detail.scrollIntoViewIfNeeded();
    await shot(page, 'f2-run-detail');
    await detail.getByTestId('run-detail-close').click();
    expect(await page.getByTestId('run-detail').count()).toBe(0);
  });

  it('puts two runs side by side: only differing settings marked, ratios with their direction and colour', async () => {
    const [a, b] = ids;
    await page.getByTestId(`run-select-${b}`).check();
    await page.getByTestId(`run-select-${a}`).check();
    const side = page.getByTestId('side-by-side');
    await side.waitFor();
    const diff = side.getByTestId('settings-diff');
    const differing = await diff.locator('tr[data-differs="true"]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-key')));
    expect(differing.sort()).toEqual(['machine.hostname', 'plan.batchesAhead']);
    expect(await diff.locator('tr[data-key="plan.batchesAhead"] td').allTextContents()).toEqual(['3 (default)', '8']);
    expect(await diff.locator('tr.is-diff').count()).toBe(2);
    expect(await diff.locator('tr[data-key="plan.workers"]').getAttribute('class')).toBe('');
    expect(await side.getByTestId('settings-diff-count').textContent()).toBe('2 settings differ (marked)');
    expect(await side.getByTestId('verdict-a').getAttribute('data-kind')).toBe('input-bound');
    expect(await side.getByTestId('verdict-b').getAttribute('data-kind')).toBe('input-bound');
    // The ratios say which run is faster, coloured worse (red) for the slower B.
    const table = page.getByTestId('compare-table');
    await table.waitFor();
    expect(await table.getByTestId('compare-best').textContent()).toBe('Best point: B is 3.26× slower than A.');
    expect(await table.getByTestId('compare-best').getAttribute('class')).toContain('bad');
    const changes = table.getByTestId('compare-change');
    expect(await changes.allTextContents()).toEqual(['B is 3.26× slower than A', 'B is 3.26× slower than A']);
    expect(await changes.evaluateAll((els) => els.map((el) => el.className.includes('bad')))).toEqual([true, true]);
    // Red is the theme's colour for worse, not the text's.
    const [colour, danger] = await changes.first().evaluate((el) => {
      const doc = el.ownerDocument;
      const probe = doc.createElement('span');
      probe.style.color = 'var(--danger)';
      doc.body.append(probe);
      const style = (e: typeof el): string => doc.defaultView!.getComputedStyle(e).color;
      const c = [style(el), style(probe)];
      probe.remove();
      return c;
    });
    expect(colour).toBe(danger);
    await side.scrollIntoViewIfNeeded();
    await shot(page, 'f2-side-by-side');
    expect(problems).toEqual([]);
  });
});
