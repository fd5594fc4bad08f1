/**
 * End to end, issue 14 feature 3 (advice before building): `beton serve` on a temp folder
 * with the 48 sample images, driven in headless Chromium. The Sources screen's estimate is
 * checked against the build it advises: the file size at 8 MiB pages, the smaller page it
 * suggests, and what that build then makes. Screenshots: f3-advice.png, f3-quality-preview.png.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { needChromium, serveApp, shot } from './e2e-helpers.js';

const MiB = 1024 * 1024;
/** "≈ 16.0 MiB" → bytes. */
const bytesOf = (t: string): number => {
  const m = /([\d.]+) (B|KiB|MiB|GiB)/.exec(t);
  if (!m) throw new Error(`no size in "${t}"`);
  return Number(m[1]) * { B: 1, KiB: 1024, MiB, GiB: 1024 * MiB }[m[2] as 'B'];
};

describe.skipIf(!needChromium())('advice before building (issue 14, feature 3), end to end', () => {
  const app = serveApp({ prefix: 'beton-e2e-f3-', images: true });
  const { problems } = app;
  let tmp: string;
  let page: Page;
  beforeAll(() => {
    ({ tmp, page } = app);
  });

  it('estimates size and time from a named sample, suggests a smaller page, warns that the 160 px crop is above the max resolution', async () => {
    await page.getByTestId('nav-sources').click();
    await page.getByTestId('source-path-browse').click();
    await page.locator('[data-testid=browser-choose-dir][data-name=images]').click();
    await page.getByTestId('schema-table').waitFor();
    await page.getByTestId('field-0-writeMode').selectOption('jpg');
    await page.getByTestId('field-0-maxResolution').fill('64');
    await page.getByTestId('workers-input').fill('1');
    // The Profile screen's default crop (rrc:160) is offered as the loader's.
    expect(await page.getByTestId('advice-crop').inputValue()).toBe('160');
    await page.getByTestId('advice-sample').fill('16');
    await page.getByTestId('advise-button').click();
    await page.getByTestId('advice-result').waitFor();
    expect(await page.getByTestId('advice-note').textContent()).toBe(
      'Estimated from 16 items picked at random (seed 0) of 48, encoded here on one thread with these settings; the time comes from a short real build of them with 1 encoder (start-up, reading, encoding and writing the file).',
    );
    expect(await page.getByTestId('advice-sampled').textContent()).toContain('16 of 48');
    expect(bytesOf((await page.getByTestId('advice-size').textContent())!)).toBe(16 * MiB);
    expect(await page.getByTestId('advice-time').textContent()).toMatch(/≈ /);
    expect(await page.getByTestId('advice-page-advice').textContent()).toMatch(
      /^With 8 MiB pages the file is about 16 MiB.*2 MiB pages make it about 4 MiB/,
    );
    expect(await page.locator('[data-testid=advice-pages] tbody tr').count()).toBe(3);
    expect(await page.getByTestId('advice-crop-warning').textContent()).toContain(
      "The loader's 160 px crop is larger than the max resolution 64 px",
    );
    await shot(page, 'f3-advice');
  });

  it('previews JPEG qualities on 4 sampled images with their sizes (growing with quality, raw = w×h×3)', async () => {
    const items = page.getByTestId('advice-quality-item');
    expect(await items.count()).toBe(4);
    for (let i = 0; i < 4; i++) {
      const item = items.nth(i);
      const labels = await item.locator('[data-testid=advice-variant] figcaption span:first-child').allTextContents();
      expect(labels).toEqual(['as configured (jpg)', 'JPEG q50', 'JPEG q75', 'JPEG q90', 'JPEG q95', 'raw']);
      const sizes = (await item.getByTestId('advice-variant-bytes').allTextContents()).map(bytesOf);
      for (let k = 2; k < 5; k++) expect(sizes[k]!).toBeGreaterThanOrEqual(sizes[k - 1]!);
      // The configured quality is 90: the same bytes as the q90 variant.
      expect(sizes[0]).toBe(sizes[3]);
      const [, w, h] = /(\d+)×(\d+)/.exec((await item.locator('.advice-quality-head').textContent())!)!;
      // Shown rounded ("5.1 KiB"): within the rounding.
      expect(Math.abs(sizes[5]! - Number(w) * Number(h) * 3) / sizes[5]!).toBeLessThan(0.01);
      expect(await item.locator('img').count()).toBe(6);
      expect(
        await item
          .locator('img')
          .first()
          .evaluate((el) => (el as unknown as { naturalWidth: number }).naturalWidth),
      ).toBe(Number(w));
    }
    await page.getByTestId('advice-quality').scrollIntoViewIfNeeded();
    await shot(page, 'f3-quality-preview');
  });

  it('"Use 2 MiB" sets the page size; the build then makes the file the advice said (about 4 MiB)', async () => {
    const estimate = bytesOf((await page.locator('[data-testid=advice-pages] tr[data-suggested=true] td').nth(1).textContent())!);
    await page.getByTestId('advice-use-page').click();
    expect(await page.getByTestId('pagesize-input').inputValue()).toBe('2');
    // The form moved on: the shown advice says it is stale.
    expect(await page.getByTestId('advice-result').getAttribute('data-stale')).toBe('true');
    await page.getByTestId('build-button').click();
    await page.getByTestId('build-report').waitFor();
    const size = statSync(join(tmp, 'images.beton')).size;
    expect(Math.abs(size - estimate) / size).toBeLessThan(0.02);
    expect(size).toBeLessThan(4.1 * MiB);
  });

  it('logged no page errors or console errors', () => {
    expect(problems).toEqual([]);
  });
});
