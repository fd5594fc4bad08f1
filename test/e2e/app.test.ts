/**
 * End to end: `beton serve` on a temp folder holding a small image folder, driven in
 * headless Chromium (Debian's /usr/bin/chromium through playwright-core). Builds a dataset
 * through the UI, opens it, profiles it, finds the run, exports code; checks the token and
 * the folder confinement; saves a screenshot of each screen under test-output/screenshots/.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { needChromium, serveApp, shot as save } from './e2e-helpers.js';
import { expectVerdictSays } from './verdict-says.js';

describe.skipIf(!needChromium())('the app, end to end (beton serve + headless Chromium)', () => {
  const app = serveApp({
    prefix: 'beton-e2e-',
    images: true,
    downloads: true,
    permissions: ['clipboard-read', 'clipboard-write'],
    // The FORBIDDEN check below makes the browser log its 403; anything else is a problem.
    // Refusals the tests provoke on purpose: 403 (outside the folder), 409 (an existing output, which the UI then asks about).
    expected: (m) => (m.text().includes('status of 403') || m.text().includes('status of 409')) && m.location().url.includes('/api/'),
  });
  let tmp: string;
  let url: string;
  let origin: string;
  let token: string;
  let page: Page;
  let problems: string[];
  beforeAll(() => {
    ({ tmp, url, page, problems } = app);
    origin = new URL(url).origin;
    token = new URL(url).searchParams.get('token')!;
  });

  const shot = (name: string): Promise<Buffer> => save(page, name);
  const api = (method: string, params: unknown, headers: Record<string, string> = { 'X-Beton-Token': token }): Promise<Response> =>
    fetch(`${origin}/api/${method}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(params),
    });

  it('answers 401 to API requests without the right token, before any routing', async () => {
    const attempts: Array<Record<string, string>> = [{}, { 'X-Beton-Token': 'wrong' }, { Authorization: 'Bearer nope' }];
    for (const headers of attempts) {
      const r = await api('env.info', {}, headers);
      expect(r.status).toBe(401);
      expect(await r.json()).toMatchObject({ ok: false, error: { code: 'UNAUTHORIZED' } });
    }
    expect((await fetch(`${origin}/api/events`)).status).toBe(401);
    expect((await api('no.such.method', {}, {})).status).toBe(401);
    expect((await api('env.info', {}, { Authorization: `Bearer ${token}` })).status).toBe(200);
    // The query string carries the token for the event stream only.
    expect((await fetch(`${origin}/api/env.info?token=${token}`, { method: 'POST', body: '{}' })).status).toBe(401);
  });

  it('refuses paths outside the served folder (FORBIDDEN)', async () => {
    for (const [method, params] of [
      ['fs.browse', { path: '/etc' }],
      ['datasets.inspect', { path: '/etc/passwd' }],
      ['fs.browse', { path: join(tmp, '..') }],
      ['sources.detect', { path: join(tmp, 'images', '..', '..') }],
    ] as const) {
      const r = await api(method, params);
      expect(r.status, `${method} ${JSON.stringify(params)}`).toBe(403);
      expect(await r.json()).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    }
  });

  it('opens with the token, drops it from the address bar, and serves the page under a strict CSP', async () => {
    const res = await page.goto(url);
    expect(res?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.getByTestId('env-info').waitFor();
    expect(page.url()).not.toContain('token');
    await page.locator('[data-testid=connection][data-state=open]').waitFor(); // the event stream is live
    // In the UI too, a path outside the folder is refused with its code.
    await page.getByTestId('nav-dataset').click();
    await page.getByTestId('dataset-path').fill('/etc/passwd');
    await page.getByTestId('dataset-open').click();
    expect(await page.getByTestId('dataset-error').getAttribute('data-code')).toBe('FORBIDDEN');
    await page.getByTestId('dataset-path').fill('');
  });

  it('builds a dataset through the UI: progress reaches 100% and the report shows', async () => {
    await page.getByTestId('nav-sources').click();
    await page.getByTestId('source-path-browse').click();
    await page.locator('[data-testid=browser-choose-dir][data-name=images]').click();
    await page.getByTestId('schema-table').waitFor();
    expect(await page.getByTestId('source-length').textContent()).toBe('48 samples');
    expect(await page.getByTestId('output-input').inputValue()).toBe(join(tmp, 'images.beton'));
    await page.getByTestId('workers-input').fill('1');
    await shot('sources');
    await page.getByTestId('build-button').click();
    await page.getByTestId('build-report').waitFor();
    expect(await page.getByTestId('build-progress').getAttribute('aria-valuenow')).toBe('100');
    expect(await page.getByTestId('build-percent').textContent()).toBe('100%');
    expect(await page.getByTestId('report-samples').textContent()).toBe('48');
    expect(await page.getByTestId('report-skipped').textContent()).toBe('0');
    expect(Number(await page.getByTestId('throughput-chart').getAttribute('data-count'))).toBeGreaterThan(0);
    await shot('build');
  });

  it('asks before replacing an existing .beton: the same build again shows a confirmation, and Replace it rebuilds', async () => {
    await page.getByTestId('nav-sources').click();
    await page.getByTestId('build-button').click();
    await page.getByTestId('overwrite-confirm').waitFor();
    expect(await page.getByTestId('overwrite-confirm').textContent()).toContain('already exists');
    await shot('overwrite-confirm');
    await page.getByTestId('overwrite-yes').click();
    await page.getByTestId('build-report').waitFor();
    expect(await page.getByTestId('report-samples').textContent()).toBe('48');
  });

  it('opens the dataset: header, page map and decoded thumbnails with paging', async () => {
    await page.getByTestId('open-in-dataset').click();
    await page.locator('[data-testid=thumb] img').first().waitFor();
    expect(await page.getByTestId('dataset-samples').textContent()).toBe('48');
    expect(Number(await page.getByTestId('page-map').getAttribute('data-count'))).toBeGreaterThan(0);
    expect(await page.getByTestId('thumb').count()).toBe(24);
    expect(
      await page
        .locator('[data-testid=thumb] img')
        .first()
        .evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
    ).toBeGreaterThan(0);
    expect(await page.getByTestId('fields-table').textContent()).toContain('RGBImageField');
    await shot('dataset');
    await page.getByTestId('page-next').click();
    await page.getByText('24–47 of 48').waitFor();
    await page.locator('[data-testid=thumb-grid][aria-busy=false]').waitFor();
    expect(await page.locator('[data-testid=thumb] .thumb-index').first().textContent()).toBe('#24');
    expect(await page.getByTestId('thumb').count()).toBe(24);
  });

  it('profiles the dataset: live charts fill and a verdict arrives', async () => {
    await page.getByTestId('nav-profile').click();
    // Started without --allow-exec: the training-command form says how to turn it on.
    await page.getByTestId('mode-exec').click();
    expect(await page.getByTestId('exec-disabled').textContent()).toContain('--allow-exec');
    expect(await page.getByTestId('profile-command').isDisabled()).toBe(true);
    expect(await page.getByTestId('profile-start').isDisabled()).toBe(true);
    await shot('profile-exec-disabled');
    await page.getByTestId('mode-grid').click();
    expect(await page.getByTestId('profile-file').inputValue()).toBe(join(tmp, 'images.beton'));
    await page.getByTestId('profile-workers').fill('1');
    await page.getByTestId('profile-batch').fill('8');
    // Two seconds a point: the timeline samples every 250 ms, and a one-second point on a
    // loaded machine (the whole suite beside it) sometimes ended before its first sample.
    await page.getByTestId('profile-seconds').fill('2');
    await page.getByTestId('profile-warmup').fill('1');
    await page.getByTestId('profile-start').click();
    await page.getByTestId('verdict').waitFor({ timeout: 90_000 });
    await expectVerdictSays(page);
    expect(Number(await page.getByTestId('chart-timeline').getAttribute('data-count'))).toBeGreaterThan(0);
    expect(Number(await page.getByTestId('chart-points').getAttribute('data-count'))).toBe(1);
    expect(Number(await page.getByTestId('chart-cpu').getAttribute('data-count'))).toBeGreaterThan(0);
    expect(await page.getByTestId('chart-timeline').locator('.recharts-line-curve').count()).toBeGreaterThan(0);
    expect(await page.getByTestId('chart-points').locator('.recharts-line-dots circle, .recharts-dot').count()).toBeGreaterThan(0);
    expect(await page.getByTestId('profile-progress').getAttribute('aria-valuenow')).toBe('100');
    await shot('profile');
  });

  it('lists the run in Runs and overlays it', async () => {
    await page.getByTestId('view-run').click();
    await page.getByTestId('run-row').first().waitFor();
    expect(await page.getByTestId('run-row').count()).toBe(1);
    const id = await page.getByTestId('run-row').first().getAttribute('data-id');
    expect(await page.getByTestId(`run-select-${id}`).isChecked()).toBe(true);
    await page.locator('[data-testid=overlay-chart][data-count="1"]').waitFor();
    await shot('runs');
  });

  it('exports Python with Loader( and JSON; copies and saves', async () => {
    await page.getByTestId('nav-export').click();
    expect(await page.getByTestId('export-file').inputValue()).toBe(join(tmp, 'images.beton'));
    await page.getByTestId('export-generate').click();
    await page.getByTestId('code-block').waitFor();
    const python = await page.getByTestId('code-block').textContent();
    expect(python).toContain('Loader(');
    expect(python).toContain(join(tmp, 'images.beton'));
    expect(await page.getByTestId('code-block').locator('.tok-keyword').count()).toBeGreaterThan(0);
    await shot('export');
    await page.getByTestId('format-json').click();
    await page.getByTestId('export-generate').click();
    await page.locator('[data-testid=code-block].lang-json').waitFor();
    expect(await page.getByTestId('code-block').textContent()).toContain('"batchSize"');
    await page.getByTestId('copy-button').click();
    expect(await page.getByTestId('export-notice').textContent()).toBe('Copied to the clipboard.');
    expect(await page.evaluate('navigator.clipboard.readText()')).toContain('"batchSize"');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('save-button').click()]);
    expect(download.suggestedFilename()).toBe('images_loader.json');
    // The dark theme, for the record.
    await page.getByTestId('theme-select').selectOption('dark');
    expect(await page.locator('html').getAttribute('data-theme')).toBe('dark');
    await shot('export-dark');
  });

  it('deletes the run after confirmation', async () => {
    await page.getByTestId('theme-select').selectOption('system');
    await page.getByTestId('nav-runs').click();
    const id = await page.getByTestId('run-row').first().getAttribute('data-id');
    await page.getByTestId(`run-delete-${id}`).click();
    await page.getByTestId('confirm-delete').click();
    await page.getByTestId('runs-empty').waitFor();
  });

  it('logged no page errors or console errors (CSP violations included)', () => {
    expect(problems).toEqual([]);
  });
});
