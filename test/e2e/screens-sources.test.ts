/**
 * End to end, issue 30's Sources items: a quality preview opens at 1:1 with a before/after
 * slider; at 1024 px the schema table shows Smart threshold and Pass-through; a CSV gets a
 * page that fits it (2 MiB, FFCV's writer minimum) and no image columns or loader crop; a video
 * folder's length is known once the estimate read every clip; a missing relative path says
 * relative to what; a single .jpg is answered as one. Screenshots: s30-sources-*.png.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { ffmpegAvailable } from '../../core/sources/video/video-ffmpeg.js';
import { writeVideoFolder } from '../helpers/videos.js';
import { needChromium, serveApp, shot } from './e2e-helpers.js';

const HAVE_FFMPEG = ffmpegAvailable();

describe.skipIf(!needChromium())('issue 30, Sources items, end to end', () => {
  const app = serveApp({
    prefix: 'beton-e2e-s30s-',
    images: true,
    // The refused paths answer 400/404 on purpose.
    expected: (m) => /status of 40[04]/.test(m.text()),
    prepare: (dir) => {
      const rows = Array.from({ length: 400 }, (_, i) => `${i},${['paris', 'rome'][i % 2]},${(i * 0.25).toFixed(2)}`);
      writeFileSync(join(dir, 'small.csv'), `id,city,score\n${rows.join('\n')}\n`);
      if (HAVE_FFMPEG) writeVideoFolder(join(dir, 'videos'), { a: 'red', b: 'blue' }, { size: '64x48', pattern: 'testsrc', quality: 3 });
    },
  });
  const { problems } = app;
  let page: Page;
  beforeAll(async () => {
    ({ page } = app);
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  const detect = async (path: string): Promise<void> => {
    await page.getByTestId('nav-sources').click();
    await page.getByTestId('source-path').fill(path);
    await page.getByTestId('detect-button').click();
  };
  const headers = (): Promise<string[]> => page.getByTestId('schema-table').locator('thead th').allTextContents();

  it('a quality preview opens at 1:1 with a slider between the lossless image and the JPEG', async () => {
    await detect(join(app.tmp, 'images'));
    await page.getByTestId('schema-table').waitFor();
    await page.getByTestId('advise-button').click();
    await page.getByTestId('advice-quality').waitFor({ timeout: 120_000 });
    const q50 = page.getByTestId('advice-quality-item').first().getByTestId('advice-variant').filter({ hasText: 'JPEG q50' });
    await q50.getByTestId('advice-variant-open').click();
    const dialog = page.getByTestId('quality-compare');
    await dialog.waitFor();
    expect(await dialog.getByTestId('compare-before').textContent()).toBe('raw');
    expect(await dialog.getByTestId('compare-after').textContent()).toBe('JPEG q50');
    // 1:1: drawn at the image's own pixel size.
    const img = dialog.getByTestId('compare-after-img');
    const [natural, drawn] = await img.evaluate((e) => [
      (e as unknown as { naturalWidth: number }).naturalWidth,
      e.getBoundingClientRect().width,
    ]);
    expect(drawn).toBe(natural);
    await dialog.getByTestId('compare-slider').fill('20');
    expect(await dialog.locator('.compare-top').evaluate((e) => (e as unknown as { style: { clipPath: string } }).style.clipPath)).toBe(
      'inset(0px 80% 0px 0px)',
    );
    await dialog.getByTestId('compare-zoom').selectOption('4');
    expect(await img.evaluate((e) => e.getBoundingClientRect().width)).toBe(natural! * 4);
    await shot(page, 's30-sources-quality-compare');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  it('at 1024 px the image schema shows every option column, Smart threshold and Pass-through included', async () => {
    await page.setViewportSize({ width: 1024, height: 768 });
    expect(await headers()).toEqual(expect.arrayContaining(['Smart threshold', 'Pass-through']));
    const scroll = page.getByTestId('schema-card').locator('.table-scroll');
    const [sw, cw] = await scroll.evaluate((e) => [e.scrollWidth, e.clientWidth]);
    expect(sw).toBeLessThanOrEqual(cw! + 1);
    await page.getByTestId('schema-card').scrollIntoViewIfNeeded();
    await shot(page, 's30-sources-schema-1024');
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  it('a small CSV: 2 MiB pages, said why; no image columns and no loader crop', async () => {
    await detect(join(app.tmp, 'small.csv'));
    await page.locator('[data-testid=schema-table][data-layout=plain]').waitFor();
    expect(await headers()).toEqual(['Field', 'Type', 'Options', 'Remove']);
    expect(await page.getByTestId('pagesize-input').inputValue()).toBe('2');
    expect(await page.getByText(/2 MiB pages for a table of \d+ KiB/).count()).toBe(1);
    expect(await page.getByTestId('advice-crop').count()).toBe(0);
    await shot(page, 's30-sources-csv');
  });

  it.skipIf(!HAVE_FFMPEG)('a video folder: clip columns only, and its length once the estimate read every clip', async () => {
    await detect(join(app.tmp, 'videos'));
    await page.locator('[data-testid=schema-table][data-layout=clip]').waitFor();
    const h = await headers();
    expect(h).not.toContain('Smart threshold');
    expect(h).not.toContain('Pass-through');
    expect(await page.getByTestId('advice-crop').count()).toBe(0);
    expect(await page.getByTestId('source-length').textContent()).toMatch(/^length unknown/);
    await page.getByTestId('advise-button').click();
    await page.getByTestId('advice-result').waitFor({ timeout: 120_000 });
    await expect.poll(() => page.getByTestId('source-length').textContent()).toBe('2 samples (counted by the estimate)');
    await shot(page, 's30-sources-video');
  });

  it('a missing relative path says relative to what; a single .jpg is answered as one image', async () => {
    await detect('photos/train');
    const error = page.getByTestId('error');
    await expect
      .poll(() => error.textContent())
      .toContain(`photos/train (relative to ${app.tmp}, so ${join(app.tmp, 'photos/train')}) does not exist`);
    await shot(page, 's30-sources-relative');
    await detect(join(app.tmp, 'images/circles/circles_00.jpg'));
    await expect.poll(() => error.textContent()).toContain('circles_00.jpg is a single image; a dataset source is a folder of images');
    expect(await error.textContent()).not.toContain('source.format');
    await shot(page, 's30-sources-single-jpg');
    expect(problems).toEqual([]);
  });
});
