/**
 * End to end: the Dataset screen opens a dataset by URL. s3rver on loopback (in a worker
 * thread, test/helpers/remote-servers.ts) holds an FFCV fixture; `beton serve
 * --allow-remote s3://data/sets` reads it with the SDK's standard configuration pointed at
 * s3rver. The URL field checks the scheme before sending; the samples show and open; the
 * link (#/dataset?file=s3://…) survives a reload; a URL outside --allow-remote is one line
 * saying how to allow it; the health check is said to be local-only. Screenshots:
 * dataset-url.png, dataset-url-refused.png.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { manifest } from '../helpers/fixtures.js';
import { needChromium, shot } from './e2e-helpers.js';
import { expectRefused, serveRemoteApp, URL_OK, URL_REFUSED } from './remote-app.js';

describe.skipIf(!needChromium())('Dataset screen: open a dataset by URL, end to end', () => {
  const app = serveRemoteApp('beton-e2e-url-');
  const { problems } = app;
  let page: Page;
  const inspects: string[] = [];
  beforeAll(() => {
    page = app.page;
    page.on('request', (r) => {
      if (r.url().endsWith('/api/datasets.inspect')) inspects.push(r.postData() ?? '');
    });
  });

  it('the URL field refuses what is not an s3:// or http(s):// URL before asking the server', async () => {
    await page.getByTestId('nav-dataset').click();
    for (const [text, says] of [
      ['ftp://host/train.beton', 'ftp:// URLs cannot be opened here'],
      ['/data/train.beton', 'is not a URL'],
      ['s3://data', 'the key is missing'],
    ] as const) {
      await page.getByTestId('dataset-url').fill(text);
      await page.getByTestId('dataset-url-open').click();
      const problem = page.getByTestId('dataset-url-problem');
      expect(await problem.textContent()).toContain(says);
      expect(await problem.textContent()).toContain('s3://bucket/key');
    }
    // Typing again clears the message.
    await page.getByTestId('dataset-url').fill('s3://');
    expect(await page.getByTestId('dataset-url-problem').count()).toBe(0);
    expect(inspects).toEqual([]);
  });

  it('opens an s3:// dataset by URL: header, samples, a sample in full; the health check is local-only', async () => {
    const n = manifest('images_jpg').num_samples;
    await page.getByTestId('dataset-url').fill(URL_OK);
    await page.getByTestId('dataset-url').press('Enter');
    await page.locator('[data-testid=thumb-grid][aria-busy=false]').waitFor();
    expect(await page.getByTestId('dataset-samples').textContent()).toBe(String(n));
    expect(await page.getByTestId('thumb').count()).toBe(Math.min(n, 24));
    expect(await page.locator('[data-testid=thumb] img').count()).toBeGreaterThan(0);
    expect(JSON.parse(inspects.at(-1)!)).toEqual({ path: URL_OK });
    expect(await page.getByTestId('health-remote').textContent()).toContain(`beton cp ${URL_OK} FILE`);
    expect(await page.getByTestId('health-panel').count()).toBe(0);
    // The link names the URL.
    expect(new URL(page.url()).hash).toBe(`#/dataset?file=${encodeURIComponent(URL_OK)}`);
    // A sample in full (datasets.sample over the network).
    await page.getByTestId('thumb-open').nth(1).click();
    await page.locator('[data-testid=sample-detail][data-index="1"][data-loaded=true]').waitFor();
    expect(await page.getByTestId('detail-image-box').count()).toBeGreaterThan(0);
    await page.getByTestId('detail-close').click();
    await shot(page, 'dataset-url');
  });

  it('a reload keeps the URL dataset open (#/dataset?file=s3://…)', async () => {
    const before = inspects.length;
    await page.reload();
    await page.locator('[data-testid=connection][data-state=open]').waitFor();
    await page.locator('[data-testid=thumb-grid][aria-busy=false]').waitFor();
    expect(await page.getByTestId('dataset-samples').textContent()).toBe(String(manifest('images_jpg').num_samples));
    expect(await page.getByTestId('dataset-url').inputValue()).toBe(URL_OK);
    expect(await page.getByTestId('dataset-path').inputValue()).toBe('');
    expect(inspects.length).toBeGreaterThan(before);
    expect(new URL(page.url()).hash).toBe(`#/dataset?file=${encodeURIComponent(URL_OK)}`);
  });

  it('a URL outside --allow-remote: one line saying how to allow it', async () => {
    await page.getByTestId('dataset-url').fill(URL_REFUSED);
    await page.getByTestId('dataset-url-open').click();
    await expectRefused(page, 'dataset-url-refused');
    const refused = page.getByTestId('dataset-url-refused');
    expect(await page.getByTestId('dataset-error').count()).toBe(0);
    await shot(page, 'dataset-url-refused');
    // Editing the URL clears it.
    await page.getByTestId('dataset-url').fill(URL_OK);
    expect(await refused.count()).toBe(0);
    // The refusal's 403 is the browser's console line for a failed fetch, provoked here.
    expect(problems.filter((p) => !(p.includes('status of 403') && p.includes('/api/')))).toEqual([]);
  });
});
