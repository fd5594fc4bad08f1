/**
 * End to end, issue 18 (engines): a sweep started from the app with two engines — ours and
 * the torch DataLoader over the images the file was built from — draws one series per engine
 * in "Images/s vs workers", on the Profile screen and in Runs, and shows a stacked stage bar
 * per point of ours. An engine the server's Python lacks (FFCV here: BETON_PYTHON points at a
 * Python without it) is not offered, with one line on how to get it.
 * Screenshot e18-profile-engines.png.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { needChromium, ROOT, serveApp, shot } from './e2e-helpers.js';
import { PYTHON } from '../interop/ffcv.js';

// torchvision without FFCV: the Debian python3 has both, so a shim hides ffcv from it.
const HIDE_FFCV = `import sys; sys.modules['ffcv'] = None`;

describe.skipIf(!needChromium())('profile engines (issue 18), end to end', () => {
  const app = serveApp({
    prefix: 'beton-e2e-engines-',
    images: true,
    prepare: (dir) => {
      execFileSync(process.execPath, [join(ROOT, 'bin/beton.js'), 'build', join(dir, 'images'), '-o', join(dir, 'images.beton')], {
        stdio: 'pipe',
      });
      // A python3 that has torch and torchvision but cannot import ffcv.
      execFileSync('sh', ['-c', `mkdir -p "${dir}/py" && printf '%s\\n' "${HIDE_FFCV}" > "${dir}/py/sitecustomize.py"`]);
    },
    env: (dir) => ({ BETON_PYTHON: PYTHON, PYTHONPATH: join(dir, 'py') }),
  });
  let tmp: string;
  let page: Page;
  beforeAll(() => {
    ({ tmp, page } = app);
  });

  it('a missing engine is not offered and says how to get it; beton + torch are drawn as separate series', async () => {
    await page.getByTestId('nav-profile').click();
    await page.getByTestId('mode-grid').click();
    const missing = page.getByTestId('engine-missing-ffcv');
    await missing.waitFor({ timeout: 120_000 });
    expect(await missing.textContent()).toMatch(/pip install ffcv/);
    // Worded for the app (issue 27): what to do here — the interpreter field — not the CLI's "pass --python PATH".
    expect(await missing.textContent()).toMatch(/name a Python that has it in "Python interpreter" below/);
    expect(await missing.textContent()).not.toMatch(/--python/);
    await page.getByTestId('profile-engines').scrollIntoViewIfNeeded();
    await page.getByTestId('profile-engines').screenshot({ path: join(ROOT, 'test-output', 'screenshots', 'i27-engine-missing.png') });
    expect(await page.getByTestId('engine-ffcv').isDisabled()).toBe(true);

    await page.getByTestId('profile-file').fill(join(tmp, 'images.beton'));
    await page.getByTestId('profile-workers').fill('1');
    await page.getByTestId('profile-batch').fill('4');
    await page.getByTestId('profile-seconds').fill('1');
    await page.getByTestId('profile-warmup').fill('1');
    await page.getByTestId('engine-torch').check();
    await page.getByTestId('profile-source').fill(join(tmp, 'images'));
    await page.getByTestId('profile-start').click();
    await page.getByTestId('verdict').waitFor({ timeout: 240_000 });

    const chart = page.getByTestId('chart-points');
    const legend = (await chart.locator('.recharts-legend-item-text').allTextContents()).sort();
    expect(legend).toEqual(['beton · bs 4 · random', 'torch · bs 4 · random']);
    expect(await chart.locator('.recharts-line-curve, .recharts-line-dots').count()).toBeGreaterThan(0);
    // The engines compared in the answer: torch is the one trained with (measured, FFCV not), ours against it.
    const engines = page.getByTestId('verdict').getByTestId('answer-engines');
    expect(await engines.locator('tr[data-engine=torch] th').textContent()).toContain('trained with');
    expect(await engines.locator('tr[data-engine=beton] td').last().textContent()).toMatch(/^\d+\.\d\d×$/);
    // Our point has its stage bar, timed in the workers.
    const bars = page.getByTestId('verdict').getByTestId('stage-bar');
    expect(await bars.count()).toBeGreaterThanOrEqual(1);
    expect(await bars.first().getAttribute('data-method')).toBe('timers');
    await chart.scrollIntoViewIfNeeded();
    await shot(page, 'e18-profile-engines');

    // Runs: the run draws one line per engine.
    await page.getByTestId('view-run').click();
    const overlay = page.getByTestId('overlay-chart');
    await overlay.locator('.recharts-legend-item-text').first().waitFor({ timeout: 30_000 });
    const runLegend = (await overlay.locator('.recharts-legend-item-text').allTextContents()).sort();
    expect(runLegend).toHaveLength(2);
    expect(runLegend[0]).toMatch(/^run \d+ · beton$/);
    expect(runLegend[1]).toMatch(/^run \d+ · torch$/);
  }, 300_000);
});
