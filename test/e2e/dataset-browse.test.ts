/**
 * End to end, issue 14 feature 1 (browse the dataset): `beton serve` on a temp folder with
 * the sample images, driven in headless Chromium. A build from the app leaves the sidecar
 * manifest; the Dataset screen then shows class names on samples, a class histogram, a
 * label filter (answered by the server), and each sample's stored size, resolution and
 * raw/JPEG mode. Screenshots: f1-class-names.png, f1-filter-histogram.png, f1-manifest-note.png.
 */
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { needChromium, serveApp, shot } from './e2e-helpers.js';

const CLASSES = ['circles', 'gradients', 'squares', 'stripes'];

describe.skipIf(!needChromium())('browse the dataset (issue 14, feature 1), end to end', () => {
  const app = serveApp({ prefix: 'beton-e2e-f1-', images: true });
  const { problems } = app;
  let tmp: string;
  let page: Page;
  beforeAll(() => {
    ({ tmp, page } = app);
  });

  it('a build from the app writes images.beton.manifest.json with the class folders in label order', async () => {
    await page.getByTestId('nav-sources').click();
    await page.getByTestId('source-path-browse').click();
    await page.locator('[data-testid=browser-choose-dir][data-name=images]').click();
    await page.getByTestId('schema-table').waitFor();
    // smart + threshold: the small images raw, the larger JPEG, so both modes show.
    await page.getByTestId('field-0-writeMode').selectOption('smart');
    await page.getByTestId('field-0-smartThreshold').fill('20000');
    await page.getByTestId('field-0-maxResolution').fill('96');
    await page.getByTestId('workers-input').fill('1');
    await page.getByTestId('build-button').click();
    await page.getByTestId('build-report').waitFor();
    const manifest = join(tmp, 'images.beton.manifest.json');
    expect(existsSync(manifest)).toBe(true);
    expect((JSON.parse(readFileSync(manifest, 'utf8')) as { classNames: { names: string[] } }).classNames.names).toEqual(CLASSES);
  });

  it('Dataset: every sample shows its class name, resolution, raw/jpg and stored bytes', async () => {
    await page.getByTestId('open-in-dataset').click();
    await page.locator('[data-testid=thumb-grid][aria-busy=false]').waitFor();
    expect(await page.getByTestId('manifest-status').getAttribute('data-status')).toBe('ok');
    expect(await page.getByTestId('manifest-status').textContent()).toContain('images.beton.manifest.json');
    const classes = await page.getByTestId('thumb-class').allTextContents();
    expect(classes).toEqual([...Array(12).fill('circles'), ...Array(12).fill('gradients')]);
    const stored = await page.getByTestId('thumb-stored').allTextContents();
    expect(stored).toHaveLength(24);
    for (const s of stored) expect(s).toMatch(/^\d+×\d+ (raw|jpg) [\d.]+ (B|KiB)$/);
    const modes = await page.getByTestId('thumb-mode').allTextContents();
    expect(new Set(modes).size).toBe(2);
    // A raw image's stored bytes are w×h×3, as the page says.
    const raw = stored.find((s) => s.includes(' raw '))!;
    const [, w, h] = /^(\d+)×(\d+)/.exec(raw)!;
    const title = await page.getByTestId('thumb-stored').filter({ hasText: raw }).first().getAttribute('title');
    expect(title).toContain(`stored raw in ${Number(w) * Number(h) * 3} bytes`);
    await shot(page, 'f1-class-names');
  });

  it('Dataset: the histogram counts 12 per class; filtering to squares shows only its 12 samples (server-side)', async () => {
    const hist = page.getByTestId('class-histogram');
    expect(await hist.getAttribute('data-count')).toBe('4');
    expect(await hist.getAttribute('aria-label')).toBe(`Samples per class: ${CLASSES.map((c) => `${c} 12`).join(', ')}`);
    expect(await hist.locator('.recharts-bar-rectangle').count()).toBe(4);
    const requests: string[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/api/datasets.preview')) requests.push(r.postData() ?? '');
    });
    await page.getByTestId('label-filter').selectOption({ label: 'squares (2) · 12' });
    await page.getByText('0–11 of 12 in squares').waitFor();
    await page.locator('[data-testid=thumb-grid][aria-busy=false]').waitFor();
    expect(await page.getByTestId('thumb-class').allTextContents()).toEqual(Array(12).fill('squares'));
    expect(await page.locator('[data-testid=thumb] .thumb-index').allTextContents()).toEqual(
      Array.from({ length: 12 }, (_, i) => `#${24 + i}`),
    );
    expect(JSON.parse(requests.at(-1)!)).toMatchObject({ label: 2, start: 0 });
    await shot(page, 'f1-filter-histogram');
    // A bar click filters too; clicking the selected bar again shows all.
    await hist.locator('.recharts-bar-rectangle').nth(3).click();
    await page.getByText('0–11 of 12 in stripes').waitFor();
    await hist.locator('.recharts-bar-rectangle').nth(3).click();
    await page.getByText('0–23 of 48').waitFor();
  });

  it('Dataset: a stale manifest is ignored with a note; the labels show as numbers', async () => {
    cpSync(join(tmp, 'images.beton'), join(tmp, 'copy.beton'));
    // Another build's manifest: the same names, another content hash.
    const m = JSON.parse(readFileSync(join(tmp, 'images.beton.manifest.json'), 'utf8')) as { beton: { contentSha256: string } };
    m.beton.contentSha256 = '0'.repeat(64);
    writeFileSync(join(tmp, 'copy.beton.manifest.json'), JSON.stringify(m));
    await page.getByTestId('dataset-path').fill(join(tmp, 'copy.beton'));
    await page.getByTestId('dataset-open').click();
    await page.locator('[data-testid=thumb-grid][aria-busy=false]').waitFor();
    expect(await page.getByTestId('manifest-status').getAttribute('data-status')).toBe('stale');
    expect(await page.getByTestId('manifest-note').textContent()).toContain('describes another build of this file');
    expect(await page.getByTestId('thumb-class').count()).toBe(0);
    expect(await page.getByTestId('class-histogram').getAttribute('aria-label')).toBe(
      'Samples per class: label 0 12, label 1 12, label 2 12, label 3 12',
    );
    await shot(page, 'f1-manifest-note');
  });

  it('logged no page errors or console errors', () => {
    expect(problems).toEqual([]);
  });
});
