/**
 * End to end, issue 14 defects 3 (stale screens), 6 (layout at 1024x700, markdown), 7 (video
 * and tables in the form) and feature 5 (a sensible start): `beton serve --allow-exec` on a
 * folder with the sample images, a CSV with a string column and a small video folder, driven
 * in headless Chromium. Screenshots: test-output/screenshots/d3-*, d6-*, d7-*, f5-*.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeVideoFolder } from '../helpers/videos.js';
import { requires } from '../helpers/requires.js';
import { needChromium, serveApp, shot } from './e2e-helpers.js';

const HAVE_FFMPEG = requires('ffmpeg', 'apt-get install -y ffmpeg', spawnSync('ffmpeg', ['-version']).status === 0);
const SPECIES = ['cat', 'dog', 'bird'];

describe.skipIf(!needChromium())('screens follow their inputs; layout, video and labels (issue 14), end to end', () => {
  const app = serveApp({
    prefix: 'beton-e2e-state-',
    images: true,
    args: ['--allow-exec'],
    prepare: (dir) => {
      const rows = Array.from(
        { length: 40 },
        (_, i) => `${i},${SPECIES[(i * 7) % 3]},${(i * 0.37).toFixed(2)},note ${i},${i * 2},${i % 4}`,
      );
      writeFileSync(
        join(dir, 'table.csv'),
        `id,species,weight,notes_for_a_rather_long_column,another_measurement,final_column_label\n${rows.join('\n')}\n`,
      );
      if (HAVE_FFMPEG) writeVideoFolder(join(dir, 'videos'), { a: 'red', b: 'blue' }, { size: '64x48', pattern: 'testsrc', quality: 3 });
    },
  });
  const { problems } = app;
  let page: Page;
  let tmp: string;
  beforeAll(async () => {
    ({ page, tmp } = app);
    // As the issue walked it: 1440x900, dark.
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.getByTestId('env-info').waitFor();
  });

  const detect = async (path: string): Promise<void> => {
    await page.getByTestId('nav-sources').click();
    await page.getByTestId('source-path').fill(path);
    await page.getByTestId('detect-button').click();
    await page.getByTestId('schema-table').waitFor();
  };
  /** Builds what the Sources screen holds; resolves on the report. */
  const build = async (): Promise<void> => {
    await page.getByTestId('build-button').click();
    await page.locator('[data-testid=build-status][data-status=ok]').waitFor({ timeout: 120_000 });
    await page.getByTestId('build-report').waitFor();
  };

  it('d3: an error banner goes once its input is edited, not when the next request happens to run', async () => {
    await page.getByTestId('nav-sources').click();
    await page.getByTestId('source-path').fill(join(tmp, 'no-such-folder'));
    await page.getByTestId('detect-button').click();
    await page.getByTestId('error').waitFor();
    await page.getByTestId('source-path').fill(join(tmp, 'images'));
    // Fixed but not yet detected: the old "cannot read" is about a path no longer asked for.
    expect(await page.getByTestId('error').count()).toBe(0);
    await shot(page, 'd3-error-follows-input');
  });

  it('f5 + d3: a training command that failed stays out of a Profile opened from a new build, whose defaults fit the dataset', async () => {
    await page.getByTestId('nav-profile').click();
    await page.getByTestId('mode-exec').click();
    // Nothing typed yet: the command field is not red.
    expect(await page.getByTestId('profile-command').getAttribute('aria-invalid')).toBeNull();
    expect(await page.getByTestId('validation-msg').count()).toBe(0);
    await shot(page, 'f5-command-untouched');
    await page.getByTestId('profile-command').fill('nosuchcmd-ui-state --epochs 1');
    await page.getByTestId('profile-start').click();
    await page.locator('[data-testid=profile-status][data-status=failed]').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('exec-result').count()).toBe(1);

    await detect(join(tmp, 'images'));
    await build();
    await page.getByTestId('profile-this').click();
    await page.getByTestId('screen-profile').waitFor();
    expect(await page.getByTestId('profile-file').inputValue()).toBe(join(tmp, 'images.beton'));
    expect(await page.getByTestId('exec-result').count()).toBe(0);
    expect(await page.getByTestId('profile-error').count()).toBe(0);
    expect(await page.getByTestId('profile-status').count()).toBe(0);
    // 48 images: the default batch (256) is cut to the largest power of two the dataset holds, and nothing is red.
    await expect.poll(() => page.getByTestId('profile-batch').inputValue()).toBe('32');
    expect(await page.getByTestId('validation-msg').count()).toBe(0);
    expect(await page.getByTestId('profile-start').isDisabled()).toBe(false);
    await shot(page, 'd3-profile-follows-build');
    await shot(page, 'f5-defaults');
  });

  // The point-2 moment itself is checked in test/renderer/app-state.test.tsx: here the host's events
  // arrived in a burst at the end on this 2-core machine, so only the wording is checked live.
  it('d3: while a sweep runs the progress names the point being measured ("measuring point N of 2 · k done")', async () => {
    await page.getByTestId('profile-workers').fill('1, 2');
    await page.getByTestId('profile-seconds').fill('5');
    await page.getByTestId('profile-warmup').fill('1');
    await page.getByTestId('profile-start').click();
    // The moment both worker counts have a live rate while the sweep runs: point 2 is being measured.
    // Read while it runs: the text names the point being measured (1-based), never the count finished.
    const probe = `(() => {
      const status = document.querySelector('[data-testid=profile-status]');
      return status && status.getAttribute('data-status') === 'running' ? document.querySelector('[data-testid=profile-progress-text]').textContent : null;
    })()`;
    const seen = new Set<string>();
    for (const t0 = Date.now(); Date.now() - t0 < 60_000;) {
      const text = (await page.evaluate(probe)) as string | null;
      if (text === null && seen.size) break;
      if (text) seen.add(text);
      if (text && seen.size === 1) await shot(page, 'd3-point-progress');
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(seen.size).toBeGreaterThan(0);
    expect(
      // The count, then what the sweep waits for in the host's words (issue 27: "starting …", "timing …").
      [...seen].every((t) => /^(measuring point [12] of 2 · [012] done|[12] of 2 points done)( · .+)?$/.test(t)),
      [...seen].join(' | '),
    ).toBe(true);
    await page.locator('[data-testid=profile-status][data-status=ok]').waitFor({ timeout: 60_000 });
    await page.getByTestId('verdict').waitFor();
  });

  it('d3: after "Export the best loader" the Export screen shows that loader\'s code, not the code generated before', async () => {
    await page.getByTestId('nav-export').click();
    await page.getByTestId('export-file').fill(join(tmp, 'images.beton'));
    await page.getByTestId('format-json').click();
    await page.locator('label:has-text("Workers") + input').fill('7');
    await page.getByTestId('export-generate').click();
    await page.locator('[data-testid=code-block]:has-text("\\"numWorkers\\": 7")').waitFor();

    await page.getByTestId('nav-profile').click();
    const best = (await page.locator('[data-testid=points-table] tr.is-best th').textContent()) ?? '';
    const workers = /^(\d+) workers?/.exec(best)?.[1];
    expect(workers).toBeDefined();
    // The answer's export action, or (a balanced run has none) the export of answer.best's point.
    await page
      .locator('[data-testid=verdict] [data-testid=action-export], [data-testid=verdict] [data-testid=export-best]')
      .first()
      .click();
    await page.getByTestId('screen-export').waitFor();
    await page.locator(`[data-testid=code-block]:has-text("\\"numWorkers\\": ${workers}")`).waitFor({ timeout: 15_000 });
    const code = (await page.getByTestId('code-block').textContent()) ?? '';
    expect(code).not.toContain('"numWorkers": 7');
    expect(code).toContain('"batchSize": 32');
    await shot(page, 'd3-export-follows-best');
  });

  it('d7: a string column becomes an int label: category → int, the mapping shown, saved in the config and the values stored', async () => {
    await detect(join(tmp, 'table.csv'));
    const row = page.getByTestId('field-row-species');
    const index = await page
      .locator('[data-testid^=field-row-]')
      .evaluateAll((rows) => rows.findIndex((r) => r.getAttribute('data-testid') === 'field-row-species'));
    await row.locator(`[data-testid=field-${index}-type]`).selectOption('int');
    await page.locator(`[data-testid=field-${index}-labels][data-state=ready]`).waitFor();
    const mapping = (await page.getByTestId(`field-${index}-labels`).textContent()) ?? '';
    expect(mapping).toContain('3 categories');
    expect(mapping).toMatch(/0\s*bird.*1\s*cat.*2\s*dog/s);
    await shot(page, 'd7-label-mapping');
    await build();
    expect(await page.getByTestId('report-samples').textContent()).toContain('40');
    expect(await page.getByTestId('label-map-species').textContent()).toBe('species: bird → 0, cat → 1, dog → 2');
    await page.getByTestId('open-in-dataset').click();
    // A table-only dataset opens as the sample table (issue 21), not thumbnails.
    await page.locator('[data-testid=table-row][data-index="2"]').waitFor();
    // Row 0 is "cat" (index 1 of bird, cat, dog), row 1 "dog" (2), row 2 "bird" (0).
    const species = await page.getByTestId('sample-table').evaluate((table) => {
      const heads = [...table.querySelectorAll('[role=columnheader]')].map((h) => h.textContent);
      const col = heads.indexOf('species');
      return [0, 1, 2].map((i) => table.querySelector(`[data-index="${i}"]`)?.querySelectorAll('[role=cell]')[col]?.textContent);
    });
    expect(species).toEqual(['1', '2', '0']);
  });

  it('d3: "Include the build" is the build that wrote the chosen file, never the last one', async () => {
    // Build 2 (the table) is the last; the first build's report exports images.beton.
    await page.getByTestId('nav-build').click();
    await page.locator('.tabs .tab').last().click();
    await page.getByTestId('build-report').waitFor();
    expect(await page.getByTestId('build-report').textContent()).toContain('images');
    await page.getByRole('button', { name: 'Export code' }).click();
    await page.getByTestId('screen-export').waitFor();
    expect(await page.getByTestId('export-file').inputValue()).toBe(join(tmp, 'images.beton'));
    await page.getByTestId('export-generate').click();
    await page
      .locator('[data-testid=code-block]:has-text("DatasetWriter"), [data-testid=code-block]:has-text("\\"build\\"")')
      .first()
      .waitFor();
    const code = (await page.getByTestId('code-block').textContent()) ?? '';
    // The images folder as the build's source (the path closed by its quote, not images.beton).
    expect(code).toMatch(new RegExp(`${join(tmp, 'images').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}["']`));
    expect(code).not.toContain('table.csv');
    await shot(page, 'd3-export-include-build');
  });

  it('d6: at 1024x700 no page scrolls sideways, wide tables scroll in their own box to their last column, and `code` is code', async () => {
    await page.setViewportSize({ width: 1024, height: 700 });
    const pageFits = (): Promise<boolean> => page.evaluate('document.documentElement.scrollWidth <= innerWidth') as Promise<boolean>;
    /** The table's box holds its last header cell once scrolled to the end. */
    const lastColumnReachable = (testId: string): Promise<boolean> =>
      page.evaluate(`(() => {
        const t = document.querySelector('[data-testid=${testId}]');
        const box = t.closest('.table-scroll') ?? t.parentElement;
        box.scrollLeft = box.scrollWidth;
        const last = [...t.querySelectorAll('thead th')].pop().getBoundingClientRect();
        const b = box.getBoundingClientRect();
        return last.right <= b.right + 1 && last.right <= innerWidth && last.width > 0;
      })()`) as Promise<boolean>;
    await detect(join(tmp, 'table.csv'));
    expect(await pageFits()).toBe(true);
    expect(await lastColumnReachable('schema-table')).toBe(true);
    await shot(page, 'd6-1024x700-schema');
    await page.getByTestId('nav-runs').click();
    await page.getByTestId('runs-table').waitFor();
    expect(await pageFits()).toBe(true);
    expect(await lastColumnReachable('runs-table')).toBe(true);
    await shot(page, 'd6-1024x700-runs');
    for (const screen of ['build', 'dataset', 'profile', 'export']) {
      await page.getByTestId(`nav-${screen}`).click();
      expect(await pageFits(), screen).toBe(true);
    }
    // Markdown inline code: rendered as <code>, no backtick left in the text.
    const head = page.getByTestId('screen-export').locator('.screen-head p');
    expect(await head.locator('code').first().textContent()).toBe('beton build --config');
    expect(await head.textContent()).not.toContain('`');
    await shot(page, 'd6-markdown');
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  it.skipIf(!HAVE_FFMPEG)(
    'd7: a video folder shows a video clip field with its clip length, stride, fps, resolution and quality; the filmstrip shows all 8 frames',
    async () => {
      await detect(join(tmp, 'videos'));
      expect(await page.getByTestId('field-0-type').inputValue()).toBe('video_clip');
      expect(await page.getByTestId('field-0-type').locator('option:checked').textContent()).toBe('video clip');
      expect(await page.getByTestId('clip-length').inputValue()).toBe('16');
      await page.getByTestId('clip-length').fill('8');
      await page.getByTestId('clip-stride').fill('8');
      await page.getByTestId('clip-fps').fill('10');
      await page.getByTestId('field-0-maxResolution').fill('48');
      await page.getByTestId('field-0-jpegQuality').fill('85');
      expect(await page.getByTestId('field-0-writeMode').inputValue()).toBe('jpg');
      await shot(page, 'd7-video-form');
      await build();
      // 20 frames per video, clips of 8 back to back: 2 clips each.
      expect(await page.getByTestId('report-samples').textContent()).toBe('4');
      await page.getByTestId('open-in-dataset').click();
      await page.getByTestId('filmstrip').first().waitFor();
      const frames = (await page.evaluate(`(() => {
      const strip = document.querySelector('[data-testid=filmstrip]');
      const box = strip.getBoundingClientRect();
      return [...strip.querySelectorAll('img')].map((img) => {
        const r = img.getBoundingClientRect();
        return { inside: r.left >= box.left - 0.5 && r.right <= box.right + 0.5 && r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5, width: r.width };
      });
    })()`)) as Array<{ inside: boolean; width: number }>;
      expect(frames.length).toBe(8);
      expect(frames.every((f) => f.inside)).toBe(true);
      expect(Math.min(...frames.map((f) => f.width))).toBeGreaterThanOrEqual(40);
      await shot(page, 'd7-filmstrip');
    },
  );

  it('logged no page errors or console errors', () => {
    expect(problems.filter((p) => !p.includes('status of 4'))).toEqual([]);
  });
});
