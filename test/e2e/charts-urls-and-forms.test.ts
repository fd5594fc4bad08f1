/**
 * End to end, issue 23's app walk: one Chromium test per defect the walk found (the Dataset
 * screen's go-to-sample defect is check-wds's). `beton serve` over a folder with the sample
 * images (and 8 copies of them, a build slow enough to cancel), a CSV with a string column,
 * and a runs database seeded with an 8-point sweep on a GPU machine and a 2-point sweep of a
 * video dataset. Screenshots: test-output/screenshots/walk-*.png.
 */
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ProfileRun, TelemetrySample } from '../../core/api/profile-model.js';
import { RunsDb } from '../../core/runs/runs-db.js';
import { seedSample, seedSweep } from '../helpers/seeded-runs.js';
import { needChromium, ROOT, serveApp, shot } from './e2e-helpers.js';

/**
 * Eight samples a point from 1 s in (a start-up second without a point) to 6 s: the span that
 * recharts' own ticks cut unevenly (1, 3, 5, 6).
 */
function samples(rates: number[]): TelemetrySample[] {
  const n = rates.length * 8;
  return rates.flatMap((rate, p) =>
    Array.from({ length: 8 }, (_, k) =>
      seedSample(Math.round(1000 + (5000 * (p * 8 + k)) / (n - 1)), p, rate * (0.95 + 0.05 * (k % 2)), { waitMsPerStep: 64_000 / rate }),
    ),
  );
}

function sweep(startedAt: string, workers: number[], schemaType: string): ProfileRun {
  const rates = workers.map((w) => 300 * w);
  const video = schemaType === 'video_clip';
  return seedSweep({
    startedAt,
    workers,
    rates,
    machine: {
      hostname: 'gpu-box',
      cpuModel: 'Test CPU',
      cores: 16,
      ramBytes: 2 ** 36,
      os: 'Linux',
      node: 'v20',
      gpus: [
        { index: 0, name: 'NVIDIA H100 80GB HBM3', memoryTotalMiB: 81_559 },
        { index: 1, name: 'NVIDIA H100 80GB HBM3', memoryTotalMiB: 81_559 },
      ],
    },
    // Another file for the video run: the runs database keeps one record per dataset.
    dataset: video
      ? { path: '/data/clips.beton', headerSha256: 'ef'.repeat(32), schema: [{ name: 'clip', type: schemaType, typeId: 7 }] }
      : { schema: [{ name: 'image', type: schemaType, typeId: 2 }] },
    samples: samples(rates),
    verdict: { kind: 'input-bound', summary: 'The consumer waits.', evidence: ['wait'], advice: [] },
  });
}

const SPECIES = ['cat', 'dog', 'bird'];

describe.skipIf(!needChromium())('the app walk of issue 23: each defect, end to end', () => {
  const ids: number[] = [];
  const app = serveApp({
    prefix: 'beton-e2e-walk-',
    images: true,
    prepare: (dir) => {
      const db = RunsDb.open(join(dir, 'runs.sqlite'));
      ids.push(
        db.saveRun(sweep('2025-03-01T10:00:00.000Z', [1, 2, 3, 4, 5, 6, 7, 8], 'rgb_image')),
        db.saveRun(sweep('2025-03-02T10:00:00.000Z', [1, 2], 'video_clip')),
      );
      db.close();
      const rows = Array.from({ length: 30 }, (_, i) => `${i},${SPECIES[i % 3]},${(i * 0.5).toFixed(1)}`);
      writeFileSync(join(dir, 'table.csv'), `id,species,weight\n${rows.join('\n')}\n`);
      // A folder big enough that a cancel lands before the build ends.
      for (let k = 0; k < 12; k++) {
        for (const cls of ['circles', 'squares']) {
          mkdirSync(join(dir, 'many', cls), { recursive: true });
          cpSync(join(ROOT, 'assets/sample-images', cls), join(dir, 'many', cls, String(k)), { recursive: true });
        }
      }
    },
  });
  const { problems } = app;
  let page: Page;
  beforeAll(() => {
    ({ page } = app);
  });

  const detect = async (path: string): Promise<void> => {
    await page.getByTestId('nav-sources').click();
    await page.getByTestId('source-path').fill(path);
    await page.getByTestId('detect-button').click();
    await page.getByTestId('schema-table').waitFor();
  };
  const build = async (): Promise<void> => {
    await page.getByTestId('build-button').click();
    await page.locator('[data-testid=build-status][data-status=ok]').waitFor({ timeout: 120_000 });
    await page.getByTestId('build-report').waitFor();
  };
  const openRun = async (id: number): Promise<void> => {
    await page.getByTestId('nav-runs').click();
    await page.getByTestId(`run-open-${id}`).click();
    await page.locator(`[data-testid=run-detail][data-id="${id}"]`).waitFor();
  };
  const closeRun = async (): Promise<void> => {
    if (await page.getByTestId('run-detail').count()) await page.getByTestId('run-detail-close').click();
  };

  it('run detail and compare name the GPUs ("2x NVIDIA H100 …"), never "[object Object]"', async () => {
    const [a, b] = ids as [number, number];
    await openRun(a);
    const gpus = (await page.locator('[data-testid=run-settings] tr[data-key="machine.gpus"] .setting-value').textContent()) ?? '';
    expect(gpus).not.toContain('[object Object]');
    expect(gpus).toBe('2× NVIDIA H100 80GB HBM3 (80 GiB)');
    await closeRun();
    await page.getByTestId(`run-select-${a}`).check();
    await page.getByTestId(`run-select-${b}`).check();
    await page.getByTestId('settings-diff').waitFor();
    const cells = await page.locator('[data-testid=settings-diff] tr[data-key="machine.gpus"] td').allTextContents();
    expect(cells).toEqual(['2× NVIDIA H100 80GB HBM3 (80 GiB)', '2× NVIDIA H100 80GB HBM3 (80 GiB)']);
    await shot(page, 'walk-gpus');
    await page.getByTestId(`run-select-${a}`).uncheck();
    await page.getByTestId(`run-select-${b}`).uncheck();
  });

  it('eight grid points: their names on the timeline do not overlap', async () => {
    await openRun(ids[0]!);
    const boxes = await page
      .getByTestId('chart-timeline')
      .locator('.recharts-label')
      .evaluateAll((els) =>
        els
          .filter((e) => /^#\d|· bs/.test(e.textContent ?? ''))
          .map((e) => {
            const r = e.getBoundingClientRect();
            return { left: r.left, right: r.right, text: e.textContent };
          }),
      );
    expect(boxes.length).toBe(8);
    const sorted = [...boxes].sort((x, y) => x.left - y.left);
    for (let i = 1; i < sorted.length; i++)
      expect(sorted[i]!.left, `${sorted[i - 1]!.text} / ${sorted[i]!.text}`).toBeGreaterThanOrEqual(sorted[i - 1]!.right);
    await page.getByTestId('chart-timeline').scrollIntoViewIfNeeded();
    await shot(page, 'walk-eight-points');
  });

  it('chart ticks are evenly spaced (no 1, 3, 5, 6)', async () => {
    const ticks = await page
      .getByTestId('chart-timeline')
      .locator('.recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value')
      .allTextContents();
    const values = ticks.map(Number);
    expect(values.length).toBeGreaterThanOrEqual(3);
    const steps = values.slice(1).map((v, i) => v - values[i]!);
    expect(new Set(steps).size, ticks.join(', ')).toBe(1);
  });

  it('tooltips carry units: the time in s, the wait in ms', async () => {
    const chart = page.getByTestId('chart-wait');
    await chart.scrollIntoViewIfNeeded();
    // The chart's own surface (its legend's icons are surfaces too).
    const box = (await chart.locator('.recharts-wrapper > .recharts-surface').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    const tip = chart.locator('.recharts-tooltip-wrapper');
    await tip.locator('.recharts-tooltip-item').first().waitFor();
    const text = (await tip.textContent()) ?? '';
    // An image dataset's throughput stays in images/s.
    await page.getByTestId('chart-timeline').locator('.recharts-label').first().waitFor();
    expect(await page.getByTestId('chart-timeline').locator('.recharts-label').allTextContents()).toContain('images/s');
    expect(text).toMatch(/\d ms/);
    expect(text).toMatch(/^\d+(\.\d+)? s/);
    await shot(page, 'walk-tooltip-units');
    await closeRun();
  });

  it("a video dataset's throughput is in clips/s, not img/s", async () => {
    await openRun(ids[1]!);
    // The chart draws its axis titles after it has measured its box: wait for them to be there.
    await page.getByTestId('chart-timeline').locator('.recharts-label').first().waitFor();
    const labels = await page.getByTestId('chart-timeline').locator('.recharts-label').allTextContents();
    expect(labels).toContain('clips/s');
    expect(labels).not.toContain('images/s');
    expect(await page.getByTestId('chart-timeline').locator('.card-sub').textContent()).toContain('clips/s');
    await shot(page, 'walk-video-rate');
    // Its points table counts clips too.
    expect(await page.getByTestId('run-points').locator('thead th').nth(1).textContent()).toBe('clips/s');
    // The Runs table, listing an image and a video run, says each best rate's unit (it said img/s for both).
    expect(await page.getByTestId('runs-best-header').textContent()).toBe('Best rate');
    const unitOf = (id: number) => page.locator(`[data-testid=run-row][data-id="${id}"] [data-testid=run-rate-unit]`).textContent();
    expect(await unitOf(ids[1]!)).toBe('clips/s');
    expect(await unitOf(ids[0]!)).toBe('images/s');
  });

  it('a run is a URL: #/runs/N opens it, and a reload keeps it', async () => {
    const id = ids[1]!;
    expect(await page.evaluate('location.hash')).toBe(`#/runs/${id}`);
    await closeRun();
    await page.evaluate(`location.hash = '#/runs/${ids[0]}'`);
    await page.locator(`[data-testid=run-detail][data-id="${ids[0]}"]`).waitFor();
    await page.reload();
    await page.locator(`[data-testid=run-detail][data-id="${ids[0]}"]`).waitFor();
    await closeRun();
  });

  it('the Runs table fits at 1024 px: no sideways scroll', async () => {
    await page.setViewportSize({ width: 1024, height: 700 });
    await page.getByTestId('nav-runs').click();
    await page.getByTestId('runs-table').waitFor();
    const fits = await page.evaluate(`(() => {
      const box = document.querySelector('[data-testid=runs-table]').closest('.table-scroll');
      return box.scrollWidth <= box.clientWidth + 1;
    })()`);
    await shot(page, 'walk-runs-1024');
    expect(fits).toBe(true);
    await page.setViewportSize({ width: 1280, height: 860 });
  });

  it('raw mode: JPEG quality and compress probability are not editable; pass-through has a name', async () => {
    await detect(join(app.tmp, 'images'));
    await page.getByTestId('field-0-writeMode').selectOption('raw');
    expect(await page.getByTestId('field-0-jpegQuality').isDisabled()).toBe(true);
    expect(await page.getByTestId('field-0-compressProbability').isDisabled()).toBe(true);
    await page.getByTestId('field-0-writeMode').selectOption('jpg');
    expect(await page.getByTestId('field-0-jpegQuality').isDisabled()).toBe(false);
    expect(await page.getByRole('checkbox', { name: 'image: keep source JPEGs (pass-through)' }).count()).toBe(1);
    await shot(page, 'walk-raw-mode');
  });

  it('a new source drops the estimate (and its thumbnails) made for the previous one', async () => {
    await page.getByTestId('advise-button').click();
    await page.getByTestId('advice-result').waitFor({ timeout: 120_000 });
    await detect(join(app.tmp, 'table.csv'));
    expect(await page.getByTestId('advice-result').count()).toBe(0);
    expect(await page.getByTestId('advice-quality-item').count()).toBe(0);
    await shot(page, 'walk-new-source-no-estimate');
  });

  it('a string column is labelled as text, not "JSON"', async () => {
    const index = await page
      .locator('[data-testid^=field-row-]')
      .evaluateAll((rows) => rows.findIndex((r) => r.getAttribute('data-testid') === 'field-row-species'));
    const label = await page.getByTestId(`field-${index}-type`).locator('option:checked').textContent();
    expect(label).toBe('text (JSON)');
  });

  it('the build report of a CSV compares with the CSV\'s bytes, never "0 B of sources"', async () => {
    await build();
    const line = (await page.getByTestId('report-ratio').textContent()) ?? '';
    expect(line).not.toMatch(/\b0 B\b/);
    expect(line).toMatch(/of sources/);
    await shot(page, 'walk-csv-compression');
  });

  it('Export with "Include the build" for the CSV writes a build function to call, not a module-level `dataset = ...` that dies', async () => {
    await page.getByRole('button', { name: 'Export code' }).click();
    await page.getByTestId('screen-export').waitFor();
    await page.getByTestId('export-generate').click();
    await page.locator('[data-testid=code-block]:has-text("def build_dataset")').waitFor();
    const code = (await page.getByTestId('code-block').textContent()) ?? '';
    expect(code).not.toMatch(/^dataset = \.\.\./m);
    expect(code).toContain('# build_dataset(my_dataset)');
    expect(code).toContain('"id": [IntDecoder(), ToTensor()]');
    await shot(page, 'walk-export-with-build');
  });

  it('a cancelled build says so calmly: no red failure banner', async () => {
    await detect(join(app.tmp, 'many'));
    await page.getByTestId('build-button').click();
    await page.locator('[data-testid=build-status][data-status=running]').waitFor();
    await page.getByTestId('cancel-build').click();
    await page.locator('[data-testid=build-status][data-status=cancelled]').waitFor({ timeout: 60_000 });
    expect(await page.locator('[data-testid=build-status] .banner-error').count()).toBe(0);
    expect(await page.getByTestId('build-cancelled').textContent()).toContain('cancelled');
    await shot(page, 'walk-cancelled');
  });

  it("builds are tabs (role=tab, aria-selected) and a reload keeps the host's build history and reports", async () => {
    await page.getByTestId('nav-build').click();
    const tabs = page.getByRole('tablist', { name: 'Builds' }).getByRole('tab');
    expect(await tabs.count()).toBe(2);
    expect(await tabs.first().getAttribute('aria-selected')).toBe('true');
    await page.reload();
    await page.locator('[data-testid=connection][data-state=open]').waitFor();
    await page.getByTestId('nav-build').click();
    await page.getByRole('tablist', { name: 'Builds' }).waitFor();
    expect(await page.getByRole('tab').count()).toBe(2);
    await page.getByRole('tab').last().click();
    await page.getByTestId('build-report').waitFor();
    expect(await page.getByTestId('report-samples').textContent()).toContain('30');
    await shot(page, 'walk-reload-builds');
  });

  it('#/dataset?file=… opens that file, and a reload keeps it', async () => {
    const file = join(app.tmp, 'table.beton');
    await page.evaluate(`location.hash = '#/dataset?file=' + encodeURIComponent(${JSON.stringify(file)})`);
    await page.getByTestId('fields-table').waitFor();
    await page.reload();
    await page.getByTestId('fields-table').waitFor();
    expect(await page.evaluate('decodeURIComponent(location.hash)')).toBe(`#/dataset?file=${file}`);
    await shot(page, 'walk-dataset-url');
  });

  it('logged no page errors or console errors', () => {
    expect(problems).toEqual([]);
  });
});
