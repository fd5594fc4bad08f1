/**
 * End to end, issue 30's Sources estimate and Build items: the estimate reads every source
 * file's header and names the unreadable ones with Skip; a failed build speaks the app's words
 * ("Retry skipping bad files", not "--on-error skip"), also in the report of the skip build;
 * "measuring…" does not outlive a failure; a build too short for a chart shows its rate as a
 * number; the progress bar is never behind its label. Screenshots: s30-build-*.png.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { needChromium, serveApp, shot } from './e2e-helpers.js';

describe.skipIf(!needChromium())('issue 30, Sources estimate and Build items, end to end', () => {
  const app = serveApp({
    prefix: 'beton-e2e-s30b-',
    images: true,
    prepare: (dir) => {
      // Two bad files among 48 good ones: 24 sampled items may well miss both.
      writeFileSync(join(dir, 'images/circles/zz-notes.jpg'), 'shopping list: eggs, milk\n');
      writeFileSync(join(dir, 'images/squares/zz-empty.png'), '');
    },
  });
  const { problems } = app;
  let page: Page;
  beforeAll(() => {
    ({ page } = app);
  });

  it('Sources: the estimate reads every header, names the 2 unreadable files, and offers Skip; "Ready" only then', async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.getByTestId('nav-sources').click();
    await page.getByTestId('source-path').fill(join(app.tmp, 'images'));
    await page.getByTestId('detect-button').click();
    await page.getByTestId('schema-table').waitFor();
    await page.getByTestId('output-input').fill(join(app.tmp, 'out.beton'));
    await page.getByTestId('advise-button').click();
    const headers = page.getByTestId('advice-headers');
    await headers.waitFor({ timeout: 120_000 });
    expect(await headers.getAttribute('data-unreadable')).toBe('2');
    const listed = await page.getByTestId('advice-unreadable').textContent();
    expect(listed).toContain('circles/zz-notes.jpg');
    expect(listed).toContain('squares/zz-empty.png');
    expect(listed).not.toContain('--on-error');
    const status = page.getByTestId('form-status');
    expect(await status.textContent()).toMatch(/^2 source files cannot be read/);
    await headers.scrollIntoViewIfNeeded();
    await shot(page, 's30-sources-unreadable');
    await page.getByTestId('advice-skip').click();
    expect(await page.getByTestId('onerror-select').inputValue()).toBe('skip');
    expect(await status.textContent()).toBe("Ready to build (every file's header read)");
    // Back to "Stop the build" for the next test: the failure it shows is the point.
    await page.getByTestId('onerror-select').selectOption('fail');
  });

  it('Build: a failure says what to do in the app\'s words, with "Retry skipping bad files"; the skip build\'s report too', async () => {
    await page.getByTestId('build-button').click();
    await page.locator('[data-testid=build-status][data-status=failed]').waitFor({ timeout: 120_000 });
    const error = (await page.getByTestId('build-error').textContent()) ?? '';
    expect(error).toMatch(/zz-(notes|empty)/);
    expect(error).not.toContain('--on-error');
    expect(await page.getByTestId('build-rate').textContent()).not.toBe('measuring…');
    await shot(page, 's30-build-failed');
    await page.getByTestId('retry-skip').click();
    await page.locator('[data-testid=build-status][data-status=ok]').waitFor({ timeout: 120_000 });
    const skipped = (await page.getByTestId('skipped-list').textContent()) ?? '';
    expect(skipped).toContain('zz-notes.jpg');
    expect(skipped).not.toContain('--on-error');
    await shot(page, 's30-build-skip-report');
  });

  it("Build: a short build's throughput is a number, not a chart of one or two points", async () => {
    const chart = page.getByTestId('throughput-chart');
    const count = Number(await chart.getAttribute('data-count'));
    // 48 small images usually build in under the 3 progress reports a chart needs; on a loaded
    // machine they may not, and then the chart is drawn (test/renderer/build-screen.test.tsx
    // renders both cases without timing).
    if (count > 0 && count < 3) {
      expect(await chart.locator('svg.recharts-surface').count()).toBe(0);
      expect(await page.getByTestId('throughput-number').textContent()).toMatch(/samples\/s at [\d.]+ s$/);
    } else {
      expect(await page.getByTestId('throughput-number').count()).toBe(0);
    }
  });

  it('Build: the progress bar does not animate behind its label', async () => {
    await page.emulateMedia({ reducedMotion: 'no-preference' });
    const fill = page.getByTestId('build-progress').locator('.progress-fill');
    const duration: string = await fill.evaluate(
      (e) =>
        (globalThis as unknown as { getComputedStyle(e: unknown): { transitionDuration: string } }).getComputedStyle(e).transitionDuration,
    );
    expect(duration.split(',').every((d) => parseFloat(d) === 0)).toBe(true);
    const [fw, tw] = await fill.evaluate((e) => [e.getBoundingClientRect().width, e.parentElement!.getBoundingClientRect().width]);
    const label = parseFloat((await page.getByTestId('build-percent').textContent()) ?? '');
    expect(Math.abs((fw! / tw!) * 100 - label)).toBeLessThan(2);
    await page.emulateMedia({ reducedMotion: 'reduce' });
    expect(problems).toEqual([]);
  });
});
