/**
 * End to end, issue 21 (a dataset you can trust, a sample view worth opening) and issue
 * 23's "Go to sample" defect: `beton serve` on a folder holding a seeded image dataset
 * (exact copies, some in another class; near-duplicates; a 2000x20 image; two corrupt
 * JPEG payloads) and a CSV-built table, driven in headless Chromium. Screenshots:
 * i21-health.png, i21-sample-detail.png, i21-float-filter.png, i21-table.png, i23-goto.png,
 * check-progress.png, check-cancelled.png (a check run as a job: its progress, and a cancel).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseBuildConfig, type BuildConfigInput } from '../../core/api/build-config.js';
import { buildDataset } from '../../core/app/build.js';
import { seedHealthDataset, writeHealthFolder, type HealthPlan } from '../helpers/seeded-health.js';
import { needChromium, serveApp, shot } from './e2e-helpers.js';

const ROWS = 500;
/** Samples of the slow dataset: 4096x4096 JPEGs, about 0.1 s each to check here, so a cancel lands mid-check. */
const BIG = 160;

/**
 * An ImageFolder of BIG hard links to one large smooth JPEG (little disk), built with the JPEGs
 * passed through at full size: a check long enough to watch and cancel.
 */
async function writeSlowDataset(tmp: string): Promise<void> {
  const folder = join(tmp, 'big');
  mkdirSync(folder);
  const one = join(tmp, 'big.jpg');
  const py = `
import sys, numpy as np
from PIL import Image, ImageDraw
w = h = 4096
y, x = np.mgrid[0:h, 0:w]
img = Image.fromarray(np.stack([x * 255 // w, y * 255 // h, (x + y) * 255 // (w + h)], -1).astype(np.uint8))
d = ImageDraw.Draw(img)
for k in range(12): d.ellipse([k * 300, k * 240, k * 300 + 600, k * 240 + 400], fill=(k * 20, 255 - k * 20, 128))
img.save(sys.argv[1], quality=30)
`;
  execFileSync('timeout', ['-k', '5', '120', '/usr/bin/python3', '-c', py, one]);
  for (let c = 0; c < 2; c++) {
    mkdirSync(join(folder, `class_${c}`));
    for (let i = 0; i < BIG / 2; i++) linkSync(one, join(folder, `class_${c}`, `${i}.jpg`));
  }
  const cfg = parseBuildConfig({
    source: { type: 'image_folder', path: folder },
    output: join(tmp, 'big.beton'),
    numWorkers: 1,
    fields: [
      { name: 'image', type: 'rgb_image', writeMode: 'jpg', passThrough: true, maxResolution: null },
      { name: 'label', type: 'int' },
    ],
  } as BuildConfigInput);
  if (!cfg.ok) throw new Error(cfg.errors.join('\n'));
  await buildDataset(cfg.value);
}

describe.skipIf(!needChromium())(
  'Dataset screen: health, sample detail, field filters, table view (issue 21), go to sample (issue 23)',
  () => {
    let plan: HealthPlan;
    let ids: Map<string, number>;
    const app = serveApp({
      prefix: 'beton-e2e-i21-',
      prepare: async (tmp) => {
        plan = writeHealthFolder(join(tmp, 'seeded'), 40, { dups: 4, near: 4 });
        ids = await seedHealthDataset(join(tmp, 'seeded'), plan, join(tmp, 'health.beton'));
        // A table: id, a float score, a name; built as any CSV is.
        const lines = ['id,score,name'];
        for (let i = 0; i < ROWS; i++) lines.push(`${i},${((i * 37) % 100) / 100 + 0.005},name_${i}`);
        writeFileSync(join(tmp, 'table.csv'), lines.join('\n') + '\n');
        const cfg = parseBuildConfig({
          source: { type: 'table', path: join(tmp, 'table.csv') },
          output: join(tmp, 'table.beton'),
        } as BuildConfigInput);
        if (!cfg.ok) throw new Error(cfg.errors.join('\n'));
        await buildDataset(cfg.value);
        await writeSlowDataset(tmp);
      },
    });
    const { problems } = app;
    let tmp: string;
    let page: Page;
    let numSamples: number;
    beforeAll(() => {
      ({ tmp, page } = app);
      numSamples = ids.size;
    });

    /** Waits for the Health panel to show `state` (none, running, checked). */
    const health = (state: string) => page.locator(`[data-testid=health-panel][data-state=${state}]`).waitFor();

    const open = async (file: string) => {
      await page.getByTestId('nav-dataset').click();
      await page.getByTestId('dataset-path').fill(join(tmp, file));
      await page.getByTestId('dataset-open').click();
    };

    it('Go to sample: 999 of N, -1 and "abc" are refused with a reason; a class filter cleared by it is named', async () => {
      await open('health.beton');
      await page.locator('[data-testid=thumb-grid][aria-busy=false]').waitFor();
      const range = await page.getByTestId('preview-range').textContent();
      for (const [typed, why] of [
        ['999', `Sample 999 does not exist: the file has ${numSamples} samples (0 to ${numSamples - 1}).`],
        ['-1', `Sample numbers start at 0; enter a whole number from 0 to ${numSamples - 1}.`],
        ['abc', `"abc" is not a sample number; enter a whole number from 0 to ${numSamples - 1}.`],
      ] as const) {
        await page.getByTestId('goto-input').fill(typed);
        await page.getByTestId('goto-button').click();
        expect(await page.getByTestId('goto-error').textContent()).toBe(why);
        expect(await page.getByTestId('goto-input').getAttribute('aria-invalid')).toBe('true');
        // Nothing moved.
        expect(await page.getByTestId('preview-range').textContent()).toBe(range);
      }
      await shot(page, 'i23-goto');
      // A class filter: going to a sample clears it and says so.
      await page.getByTestId('label-filter').selectOption({ index: 2 });
      await page.getByText(/in class_1$/).waitFor();
      await page.getByTestId('goto-input').fill(String(numSamples - 1));
      await page.getByTestId('goto-button').click();
      expect(await page.getByTestId('goto-note').textContent()).toBe(
        `Showing all samples: the class filter (class_1) cleared to go to sample ${numSamples - 1}.`,
      );
      await page.locator('[data-testid=thumb][data-focus=true]').waitFor();
      expect(await page.locator('[data-testid=thumb][data-focus=true] .thumb-index').textContent()).toBe(`#${numSamples - 1}`);
      expect(await page.getByTestId('label-filter').inputValue()).toBe('');
      expect(await page.getByTestId('goto-error').count()).toBe(0);
    });

    it('Health panel: runs the check, lists corrupt samples, duplicates (labels disagreeing first), near-duplicates, outliers, classes', async () => {
      await open('health.beton');
      await health('none');
      await page.getByTestId('health-none').waitFor();
      await page.getByTestId('health-run').click();
      await health('checked');
      expect(await page.getByTestId('health-corrupt').textContent()).toBe('2');
      expect(await page.getByTestId('health-duplicates').textContent()).toBe('4');
      expect(await page.getByTestId('health-near').textContent()).toBe('4');
      expect(Number(await page.getByTestId('health-outliers').textContent())).toBeGreaterThanOrEqual(1);
      // The copies in another class come first, marked.
      const first = page.getByTestId('health-duplicate-list').locator('li').first();
      expect(await first.getByTestId('health-conflict').count()).toBe(1);
      const wide = ids.get(plan.aspect[0]!)!;
      expect(await page.getByTestId('health-outlier-list').textContent()).toContain(`#${wide}`);
      expect(await page.getByTestId('health-classes').locator('tr').count()).toBe(4);
      await shot(page, 'i21-health');
      // Kept beside the file: opened again, the panel shows it without running.
      await open('health.beton');
      await health('checked');
    });

    it('Sample detail: a click opens the full-resolution sample; arrow keys step; 1:1; duplicate group; Esc closes', async () => {
      const [orig, copy] = plan.dups[1]!;
      const a = ids.get(orig)!;
      const b = ids.get(copy)!;
      await page.getByTestId('goto-input').fill(String(a));
      await page.getByTestId('goto-button').click();
      await page.locator('[data-testid=thumb][data-focus=true]').waitFor();
      await page.locator('[data-testid=thumb][data-focus=true] [data-testid=thumb-open]').click();
      const dialog = page.getByTestId('sample-detail');
      await page.locator(`[data-testid=sample-detail][data-index="${a}"][data-loaded=true]`).waitFor();
      const img = page.getByTestId('detail-image');
      const natural = await img.evaluate((el) => {
        const im = el as unknown as { naturalWidth: number; naturalHeight: number };
        return [im.naturalWidth, im.naturalHeight];
      });
      expect(natural[0]).toBeGreaterThanOrEqual(48);
      expect(await page.getByTestId('detail-fields').textContent()).toMatch(/image.*rgb_image.*jpg/);
      expect(await page.getByTestId('detail-fields').textContent()).toContain(orig);
      expect(await page.getByTestId('detail-duplicates').textContent()).toContain(`#${b}`);
      await page.getByTestId('detail-zoom').check();
      const shown = await img.evaluate((el) => {
        const im = el as unknown as { clientWidth: number; naturalWidth: number };
        return [im.clientWidth, im.naturalWidth];
      });
      expect(shown[0]).toBe(shown[1]);
      await shot(page, 'i21-sample-detail');
      await page.keyboard.press('ArrowRight');
      await page.locator(`[data-testid=sample-detail][data-index="${a + 1}"][data-loaded=true]`).waitFor();
      await page.keyboard.press('ArrowLeft');
      await page.keyboard.press('ArrowLeft');
      await page.locator(`[data-testid=sample-detail][data-index="${a - 1}"][data-loaded=true]`).waitFor();
      // The group's other member is a click away.
      await page.keyboard.press('ArrowRight');
      await page.locator(`[data-testid=sample-detail][data-index="${a}"][data-loaded=true]`).waitFor();
      // The member's button (picture and caption): its thumbnail may still be loading, when "#b" is written twice.
      await page
        .getByTestId('detail-duplicates')
        .getByRole('button', { name: `Open sample ${b}` })
        .click();
      await page.locator(`[data-testid=sample-detail][data-index="${b}"][data-loaded=true]`).waitFor();
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
    });

    it('Sample detail with a class filter: arrow keys step through the matches', async () => {
      await page.getByTestId('label-filter').selectOption({ index: 1 });
      await page.getByText(/in class_0$/).waitFor();
      await page.locator('[data-testid=thumb-grid][aria-busy=false]').waitFor();
      const shown = (await page.locator('[data-testid=thumb] .thumb-index').allTextContents()).map((t) => Number(t.slice(1)));
      await page.locator('[data-testid=thumb-open]').first().click();
      await page.locator(`[data-testid=sample-detail][data-index="${shown[0]}"][data-loaded=true]`).waitFor();
      expect(await page.getByTestId('detail-match').textContent()).toMatch(/match 1 of \d+/);
      expect(await page.getByTestId('detail-prev').isDisabled()).toBe(true);
      await page.keyboard.press('ArrowRight');
      await page.locator(`[data-testid=sample-detail][data-index="${shown[1]}"][data-loaded=true]`).waitFor();
      expect(await page.getByTestId('detail-match').textContent()).toMatch(/match 2 of \d+/);
      await page.keyboard.press('Escape');
      await page.getByTestId('label-filter').selectOption('');
    });

    it('Table view: a CSV-built dataset is a table whose rows are fetched and rendered as they scroll into view', async () => {
      await open('table.beton');
      const table = page.getByTestId('sample-table');
      await table.waitFor();
      expect(await table.getAttribute('data-rows')).toBe(String(ROWS));
      await page.locator('[data-testid=table-row][data-index="0"]').waitFor();
      expect(await page.getByTestId('thumb-grid').count()).toBe(0);
      // Virtualised: far fewer rows in the DOM than in the file.
      expect(await page.getByTestId('table-row').count()).toBeLessThan(60);
      expect(await page.locator('[data-testid=table-row][data-index="0"]').textContent()).toBe('000.005"name_0"');
      await shot(page, 'i21-table');
      await table.evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
      await page.locator(`[data-testid=table-row][data-index="${ROWS - 1}"]`).waitFor();
      expect(await page.getByTestId('table-row').count()).toBeLessThan(60);
      await page.locator(`[data-testid=table-row][data-index="${ROWS - 1}"]`).click();
      await page.locator(`[data-testid=sample-detail][data-index="${ROWS - 1}"][data-loaded=true]`).waitFor();
      expect(await page.getByTestId('detail-fields').textContent()).toContain(`name_${ROWS - 1}`);
      await page.keyboard.press('Escape');
    });

    it('Field filter: a range on the float field keeps only the rows in range', async () => {
      await page.getByTestId('where-field').selectOption('score');
      await page.getByTestId('where-min').fill('0.25');
      await page.getByTestId('where-max').fill('0.5');
      await page.getByTestId('where-apply').click();
      const expected = Array.from({ length: ROWS }, (_, i) => ((i * 37) % 100) / 100 + 0.005).filter((s) => s >= 0.25 && s <= 0.5).length;
      await page.getByTestId('where-status').waitFor();
      expect(await page.getByTestId('where-status').textContent()).toBe(`${expected} samples with score ≥ 0.25 ≤ 0.5`);
      const table = page.getByTestId('sample-table');
      await page.locator(`[data-testid=sample-table][data-rows="${expected}"]`).waitFor();
      await page.locator('[data-testid=table-row][data-index]').first().waitFor();
      const scores = await table.locator('[data-testid=table-row][data-index] [role=cell]:nth-child(3)').allTextContents();
      expect(scores.length).toBeGreaterThan(5);
      for (const s of scores) {
        expect(Number(s)).toBeGreaterThanOrEqual(0.25);
        expect(Number(s)).toBeLessThanOrEqual(0.5);
      }
      await shot(page, 'i21-float-filter');
      // A bad bound is said, not sent.
      await page.getByTestId('where-min').fill('x');
      await page.getByTestId('where-apply').click();
      expect(await page.getByTestId('where-error').textContent()).toBe('Minimum "x" is not a number.');
      await page.getByTestId('where-clear').click();
      await page.locator(`[data-testid=sample-table][data-rows="${ROWS}"]`).waitFor();
    });

    it('Health panel: a running check shows its progress (samples of the total) and Cancel stops it, shown as cancelled, nothing kept', async () => {
      await open('big.beton');
      await health('none');
      await page.getByTestId('health-run').click();
      await health('running');
      // Progress from the check itself: some samples decoded, of the file's total.
      await page.locator('[data-testid=health-progress]:not([data-done="0"])').waitFor();
      expect(await page.getByTestId('health-done').textContent()).toMatch(new RegExp(`^\\d+ / ${BIG}$`));
      expect(Number(await page.getByTestId('health-progress').getAttribute('data-done'))).toBeLessThan(BIG);
      expect(await page.getByTestId('health-progress-bar').getAttribute('aria-valuenow')).not.toBeNull();
      await shot(page, 'check-progress');
      await page.getByTestId('health-cancel').click();
      // Cancelled: said as such, not as a failure; the panel offers the check again; nothing kept beside the file.
      await page.getByTestId('health-cancelled').waitFor();
      await health('none');
      expect(await page.getByTestId('health-progress').count()).toBe(0);
      expect(await page.locator('[data-testid=health-panel] .banner-error').count()).toBe(0);
      expect(await page.getByTestId('health-run').isEnabled()).toBe(true);
      expect(existsSync(join(tmp, 'big.beton.check.json'))).toBe(false);
      await shot(page, 'check-cancelled');
    });

    it('logged no page errors or console errors', () => {
      expect(problems).toEqual([]);
    });
  },
);
