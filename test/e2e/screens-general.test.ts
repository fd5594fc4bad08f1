/**
 * End to end, issue 30's general and Runs/Export items: screens are links, the empty state's
 * icon is drawn, the JPEG decoder is named in words, a failed run is one line in Runs, the
 * Runs table fits 1024 px, a stored run exports, "Include its build" survives a server start,
 * and after a restart with a new token the page asks for it (and "Start profiling" is off
 * while the server is away). Screenshots: test-output/screenshots/s30-*.png.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunsDb } from '../../core/runs/runs-db.js';
import { seedSample, seedSweep } from '../helpers/seeded-runs.js';
import { needChromium, ROOT, serveApp, shot } from './e2e-helpers.js';

const MACHINE = {
  hostname: 'a-rather-long-host-name',
  cpuModel: 'Test CPU',
  cores: 8,
  ramBytes: 2 ** 34,
  os: 'Linux',
  node: 'v20',
  gpus: [],
};
const TRACEBACK = [
  'Traceback (most recent call last):',
  '  File "/home/me/train.py", line 12, in <module>',
  '    loader = Loader("/data/photos.beton", batch_size=64)',
  '  File "/usr/lib/python3/site-packages/ffcv/loader/loader.py", line 120, in __init__',
  'ValueError: the dataset has no field named "label"',
].join('\n');

describe.skipIf(!needChromium())('issue 30, general and Runs/Export items, end to end', () => {
  let beton = '';
  let sweepId = 0;
  let failedId = 0;
  const app = serveApp({
    prefix: 'beton-e2e-s30g-',
    images: true,
    prepare: (dir) => {
      beton = join(dir, 'photos-of-the-garden.beton');
      // Built by the CLI into the server's runs database: a build this server never ran.
      execFileSync(process.execPath, [join(ROOT, 'bin/beton.js'), 'build', join(dir, 'images'), '-o', beton], {
        env: { ...process.env, BETON_DB: join(dir, 'runs.sqlite') },
        stdio: 'ignore',
        timeout: 120_000,
      });
      const db = RunsDb.open(join(dir, 'runs.sqlite'));
      const ok = seedSweep({
        startedAt: '2025-03-01T10:00:00.000Z',
        workers: [1, 2],
        rates: [300, 500],
        machine: MACHINE,
        samples: [seedSample(1000, 0, 300), seedSample(2000, 1, 500)],
        verdict: { kind: 'input-bound', summary: 'The consumer waits.', evidence: ['wait'], advice: [] },
      });
      ok.plan = { ...ok.plan, file: beton } as typeof ok.plan;
      ok.dataset = { ...ok.dataset!, path: beton };
      sweepId = db.saveRun(ok);
      failedId = db.saveRun({
        ...ok,
        startedAt: '2025-03-02T10:00:00.000Z',
        status: 'failed',
        failure: { message: TRACEBACK },
        points: [],
        samples: [],
        verdict: null,
      });
      db.close();
    },
  });
  const { problems } = app;
  let page: Page;
  beforeAll(() => {
    ({ page } = app);
  });
  afterAll(async () => {
    await page.setViewportSize({ width: 1280, height: 860 });
  });

  it('screens are links (#/…): each opens its screen, and Back returns to the one before', async () => {
    const nav = page.getByTestId('nav-build');
    expect(await nav.evaluate((e) => e.tagName)).toBe('A');
    expect(await nav.getAttribute('href')).toBe('#/build');
    await page.getByTestId('nav-sources').click();
    await page.getByTestId('nav-export').click();
    await page.getByTestId('screen-export').waitFor();
    await page.goBack();
    await page.getByTestId('nav-sources').and(page.locator('[aria-current=page]')).waitFor();
    expect(new URL(page.url()).hash).toBe('#/sources');
  });

  it('the empty state has a drawn icon, and the sidebar names the JPEG decoder in words', async () => {
    await page.getByTestId('nav-dataset').click();
    const icon = page.getByTestId('empty-icon').first();
    await icon.waitFor();
    expect(await icon.evaluate((e) => e.tagName.toLowerCase())).toBe('svg');
    expect(await icon.locator('path').count()).toBeGreaterThan(0);
    const decoder = (await page.getByTestId('env-decoder').textContent()) ?? '';
    expect(decoder).not.toContain('turbojpeg-npm');
    expect(decoder).toMatch(/^(libjpeg-turbo [\d.]+|libjpeg-turbo \(fast\)|sharp \(slower fallback\))$/);
    await shot(page, 's30-empty-icon');
  });

  it('Runs: a failed run is one line (its traceback behind a disclosure)', async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.getByTestId('nav-runs').click();
    const row = page.locator(`[data-testid=run-row][data-id="${failedId}"]`);
    await row.waitFor();
    const okRow = page.locator(`[data-testid=run-row][data-id="${sweepId}"]`);
    const h = (await row.boundingBox())!.height;
    const okH = (await okRow.boundingBox())!.height;
    // One line of failure and a "Traceback" summary: not the 5 lines of the traceback.
    expect(h).toBeLessThan(okH + 40);
    expect(await row.locator('.run-failure-line').textContent()).toBe('ValueError: the dataset has no field named "label"');
    expect(await row.locator('details pre').isVisible()).toBe(false);
    await shot(page, 's30-runs-failed-1440');
    await row.getByTestId('run-failure-more').click();
    expect(await row.locator('details pre').isVisible()).toBe(true);
    await row.getByTestId('run-failure-more').click();
  });

  it('Runs at 1024 px: Points, Best, Verdict and Details are in view, and the file name is whole', async () => {
    await page.setViewportSize({ width: 1024, height: 768 });
    await page.getByTestId('runs-table').waitFor();
    const row = page.locator(`[data-testid=run-row][data-id="${sweepId}"]`);
    const open = row.getByTestId(`run-open-${sweepId}`);
    const box = (await open.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(1024);
    for (const name of ['Points', 'Verdict']) {
      const th = page.getByTestId('runs-table').locator('thead th', { hasText: name });
      const b = (await th.boundingBox())!;
      expect(b.x + b.width, name).toBeLessThanOrEqual(1024);
    }
    const bh = (await page.getByTestId('runs-best-header').boundingBox())!;
    expect(bh.x + bh.width).toBeLessThanOrEqual(1024);
    expect(await row.getByTestId('run-dataset').textContent()).toBe('photos-of-the-garden.beton');
    await shot(page, 's30-runs-1024');
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  it('Export: a stored run exports its best point, and "Include its build" is on for a file built before this server started', async () => {
    await page.getByTestId('nav-runs').click();
    await page.getByTestId(`run-open-${sweepId}`).click();
    await page.getByTestId('run-export').click();
    await page.getByTestId('screen-export').waitFor();
    expect(await page.getByTestId('export-file').inputValue()).toBe(beton);
    expect(await page.getByTestId('screen-export').getByLabel('Workers').inputValue()).toBe('2');
    const include = page.getByTestId('export-include-build');
    await expect.poll(() => include.isEnabled(), { timeout: 20_000 }).toBe(true);
    await include.check();
    await page.getByTestId('export-generate').click();
    const code = page.getByTestId('export-result').getByTestId('code-block');
    await expect.poll(async () => (await code.textContent()) ?? '', { timeout: 30_000 }).toContain('DatasetWriter');
    await shot(page, 's30-export-stored-run');
  });

  it('offline: "Start profiling" is off; a server started again with a new token makes the page ask for it', async () => {
    await page.getByTestId('nav-profile').click();
    await page.getByTestId('profile-file').fill(beton);
    const start = page.getByTestId('profile-start');
    await expect.poll(() => start.isEnabled(), { timeout: 20_000 }).toBe(true);
    const port = new URL(app.url).port;
    app.kill();
    await page.locator('[data-testid=connection][data-state=connecting], [data-testid=connection][data-state=closed]').first().waitFor();
    await expect.poll(() => start.isEnabled(), { timeout: 20_000 }).toBe(false);
    await shot(page, 's30-offline-profile');
    // The same port, a new token: as `beton serve` started again by hand.
    const again = await new Promise<{ proc: ChildProcess; url: string }>((ok, fail) => {
      const proc = spawn(process.execPath, [join(ROOT, 'bin/beton.js'), 'serve', app.tmp, '--port', port], {
        cwd: app.tmp,
        env: { ...process.env, BETON_DB: app.db },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      const timer = setTimeout(() => fail(new Error(`no URL: ${out}`)), 30_000);
      proc.stdout!.on('data', (b: Buffer) => {
        out += b.toString();
        const m = /open (http:\/\/\S+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          ok({ proc, url: m[1]! });
        }
      });
    });
    try {
      await page.getByTestId('auth-required').waitFor({ timeout: 30_000 });
      await shot(page, 's30-token-asked');
      await page.getByTestId('auth-token').fill(again.url);
      await page.getByTestId('auth-submit').click();
      await page.locator('[data-testid=connection][data-state=open]').waitFor({ timeout: 30_000 });
    } finally {
      again.proc.kill('SIGTERM');
    }
    // The 401s the page met while the token was stale are the test's own doing.
    expect(problems.filter((p) => !/401|Unauthorized|ERR_CONNECTION_REFUSED|Failed to load resource/.test(p))).toEqual([]);
  });
});
