/**
 * End to end, issue 30's Dataset items: Health carries the build's skipped files; duplicate
 * groups side by side with thumbnails, file names and "labels disagree"; the label filter takes
 * class names; the filter summary is the filter applied; the detail dialog keeps its height,
 * keeps Tab inside and gives the focus back to the thumbnail; captions are not cut; "Go to
 * sample 250" scrolls there; a CSV opened as a dataset says it is not a .beton; a clip's detail
 * shows its frames and the frames the file stores. Screenshots: s30-dataset-*.png.
 */
import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseBuildConfig, type BuildConfigInput } from '../../core/api/build-config.js';
import { buildDataset } from '../../core/app/build.js';
import { ffmpegAvailable } from '../../core/sources/video/video-ffmpeg.js';
import { writeVideoFolder } from '../helpers/videos.js';
import { needChromium, ROOT, serveApp, shot } from './e2e-helpers.js';

const HAVE_FFMPEG = ffmpegAvailable();

async function build(config: BuildConfigInput): Promise<void> {
  const cfg = parseBuildConfig(config);
  if (!cfg.ok) throw new Error(cfg.errors.join('\n'));
  await buildDataset(cfg.value);
}

describe.skipIf(!needChromium())('issue 30, Dataset items, end to end', () => {
  const app = serveApp({
    prefix: 'beton-e2e-s30d-',
    // Opening the CSV as a dataset is refused (400) on purpose.
    expected: (m) => /status of 400/.test(m.text()),
    prepare: async (dir) => {
      // 6 copies of the 48 sample images in two classes: 289 samples, enough to go to sample 250.
      const pets = join(dir, 'pets');
      for (const [cls, from] of [
        ['cat', 'circles'],
        ['dog', 'squares'],
        ['dog', 'stripes'],
        ['cat', 'gradients'],
      ] as const)
        for (let k = 0; k < 6; k++) cpSync(join(ROOT, 'assets/sample-images', from), join(pets, cls, `${from}-${k}`), { recursive: true });
      // One cat image also filed under dog: duplicates whose labels disagree.
      cpSync(join(ROOT, 'assets/sample-images/circles/circles_00.jpg'), join(pets, 'dog', 'aaa-cat-in-dogs.jpg'));
      writeFileSync(join(pets, 'dog', 'zz-notes.jpg'), 'not an image\n');
      await build({
        source: { type: 'image_folder', path: pets },
        output: join(dir, 'pets.beton'),
        onError: 'skip',
        numWorkers: 1,
        fields: [
          { name: 'image', type: 'rgb_image', writeMode: 'jpg', passThrough: true },
          { name: 'label', type: 'int' },
          { name: 'path', type: 'json' },
        ],
      } as BuildConfigInput);
      const rows = Array.from({ length: 120 }, (_, i) => `${i},${['paris', 'rome', 'oslo'][i % 3]},${i % 60}`);
      writeFileSync(join(dir, 'people.csv'), `id,city,age\n${rows.join('\n')}\n`);
      await build({ source: { type: 'table', path: join(dir, 'people.csv') }, output: join(dir, 'people.beton') } as BuildConfigInput);
      if (HAVE_FFMPEG) {
        writeVideoFolder(join(dir, 'videos'), { a: 'red', b: 'blue' }, { size: '64x48', pattern: 'testsrc', quality: 3 });
        await build({
          source: { type: 'video_folder', path: join(dir, 'videos'), clipLength: 16 },
          output: join(dir, 'clips.beton'),
        } as BuildConfigInput);
      }
    },
  });
  const { problems } = app;
  let page: Page;
  beforeAll(async () => {
    ({ page } = app);
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  const open = async (file: string): Promise<void> => {
    await page.getByTestId('nav-dataset').click();
    await page.getByTestId('dataset-path').fill(join(app.tmp, file));
    await page.getByTestId('dataset-open').click();
  };

  it('opening a CSV says it is not a .beton file (not "format version 25705")', async () => {
    await open('people.csv');
    const error = page.getByTestId('dataset-error');
    await error.waitFor();
    const text = (await error.textContent()) ?? '';
    expect(text).toContain('is not a .beton file: it holds text ("id,city,age")');
    expect(text).not.toContain('format version');
    await shot(page, 's30-dataset-csv');
  });

  it('Health: the files the build skipped are listed', async () => {
    await open('pets.beton');
    const skipped = page.getByTestId('health-skipped');
    await skipped.waitFor();
    expect(await skipped.getAttribute('data-count')).toBe('1');
    const text = (await skipped.textContent()) ?? '';
    expect(text).toContain('zz-notes.jpg');
    expect(text).not.toContain('--on-error');
  });

  it('"Go to sample 250" brings sample 250 into view; captions are whole', async () => {
    await page.getByTestId('goto-input').fill('250');
    await page.getByTestId('goto-button').click();
    const thumb = page.locator('[data-testid=thumb-open][data-index="250"]');
    await thumb.waitFor();
    await expect.poll(() => thumb.isVisible()).toBe(true);
    const box = (await thumb.boundingBox())!;
    expect(box.y).toBeGreaterThanOrEqual(0);
    expect(box.y + box.height).toBeLessThanOrEqual(900);
    // No caption is cut with an ellipsis: each line's text fits its box.
    const cut = await page
      .getByTestId('thumb-grid')
      .locator('.thumb-field')
      .evaluateAll((els) => els.filter((e) => e.scrollWidth > e.clientWidth + 1).length);
    expect(cut).toBe(0);
    await shot(page, 's30-dataset-goto');
  });

  it('the detail dialog: a fixed height (Previous/Next do not move), Tab stays inside, Esc gives the thumbnail its focus back', async () => {
    const thumb = page.locator('[data-testid=thumb-open][data-index="250"]');
    await thumb.focus();
    await page.keyboard.press('Enter');
    const dialog = page.locator('[data-testid=sample-detail][data-loaded=true]');
    await dialog.waitFor();
    const next = page.getByTestId('detail-next');
    const at = (await next.boundingBox())!;
    const h = (await dialog.boundingBox())!.height;
    for (let k = 0; k < 3; k++) {
      await next.click();
      await page.locator(`[data-testid=sample-detail][data-index="${251 + k}"][data-loaded=true]`).waitFor();
      const b = (await next.boundingBox())!;
      expect([b.x, b.y]).toEqual([at.x, at.y]);
      expect((await dialog.boundingBox())!.height).toBe(h);
    }
    for (let k = 0; k < 12; k++) {
      await page.keyboard.press('Tab');
      expect(await page.evaluate('!!document.activeElement?.closest("[data-testid=sample-detail]")')).toBe(true);
    }
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await page.evaluate('document.activeElement?.getAttribute("data-index")')).toBe('253');
  });

  it('duplicates: a group side by side with thumbnails, file names and "labels disagree"', async () => {
    await page.getByTestId('health-run').click();
    await page.locator('[data-testid=health-panel][data-state=checked]').waitFor({ timeout: 120_000 });
    const group = page.getByTestId('health-duplicate-list').getByTestId('health-group').first();
    await group.waitFor();
    await expect.poll(() => group.getAttribute('data-disagree'), { timeout: 30_000 }).toBe('true');
    await expect.poll(() => group.locator('img').count(), { timeout: 30_000 }).toBeGreaterThanOrEqual(2);
    const files = await group.getByTestId('dup-file').allTextContents();
    expect(files.some((f) => f.endsWith('aaa-cat-in-dogs.jpg'))).toBe(true);
    await group.scrollIntoViewIfNeeded();
    await shot(page, 's30-dataset-duplicates');
    // The same group in the sample's dialog.
    await group.getByRole('button').first().click();
    const inDialog = page.getByTestId('detail-duplicates-group');
    await inDialog.waitFor();
    await expect.poll(() => inDialog.getAttribute('data-disagree'), { timeout: 30_000 }).toBe('true');
    await shot(page, 's30-dataset-duplicate-dialog');
    await page.keyboard.press('Escape');
  });

  it('the label filter takes class names; class + label says the right count', async () => {
    await page.getByTestId('where-field').selectOption('label');
    await page.getByTestId('where-values').fill('dog');
    await page.getByTestId('where-apply').click();
    const status = page.getByTestId('where-status');
    await status.waitFor();
    const cat = await page.locator('[data-testid=where-status]').textContent();
    expect(cat).toMatch(/^\d+ samples with label in dog \(1\)$/);
    expect(Number(cat!.split(' ')[0])).toBeGreaterThan(100);
    await page.getByTestId('where-values').fill('hamster');
    await page.getByTestId('where-apply').click();
    expect(await page.getByTestId('where-error').textContent()).toBe('No class named "hamster" (classes: cat, dog).');
  });

  it('the filter summary is the filter applied: a range on one field is not carried to a text field', async () => {
    await open('people.beton');
    await page.getByTestId('field-filter').waitFor();
    await page.getByTestId('where-field').selectOption('age');
    await page.getByTestId('where-min').fill('20');
    await page.getByTestId('where-max').fill('30');
    await page.getByTestId('where-apply').click();
    await expect.poll(() => page.getByTestId('where-status').textContent()).toBe('22 samples with age ≥ 20 ≤ 30');
    await page.getByTestId('where-clear').click();
    await page.getByTestId('where-field').selectOption('city');
    await page.getByTestId('where-values').fill('paris');
    await page.getByTestId('where-apply').click();
    await expect.poll(() => page.getByTestId('where-status').textContent()).toBe('40 samples with city in paris');
    await shot(page, 's30-dataset-filter');
  });

  it.skipIf(!HAVE_FFMPEG)("a clip's detail shows its frames and the frames the file stores", async () => {
    await open('clips.beton');
    await page.locator('[data-testid=thumb-open]').first().click();
    await page.locator('[data-testid=sample-detail][data-loaded=true]').waitFor();
    expect(await page.getByTestId('detail-frame').count()).toBe(8);
    expect(await page.getByTestId('detail-clip-count').textContent()).toMatch(/^16 frames stored/);
    await shot(page, 's30-dataset-clip');
    await page.keyboard.press('Escape');
    expect(problems).toEqual([]);
  });
});
