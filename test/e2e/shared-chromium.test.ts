/**
 * The e2e files share one Chromium per run (shared-chromium.ts, the e2e project's
 * globalSetup): its endpoint reaches the files, a file connects in its own context, and
 * closing that connection leaves the browser to the next file.
 */
import { chromium } from 'playwright-core';
import { describe, expect, inject, it } from 'vitest';
import { needChromium } from './e2e-helpers.js';

describe.skipIf(!needChromium())('one Chromium per run', () => {
  it('the endpoint is handed to the files, and two connections one after the other both work', async () => {
    const endpoint = inject('chromiumEndpoint');
    expect(endpoint).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\//);
    for (const text of ['first', 'second']) {
      const browser = await chromium.connect(endpoint);
      const page = await (await browser.newContext()).newPage();
      await page.setContent(`<p>${text}</p>`);
      expect(await page.textContent('p')).toBe(text);
      await browser.close();
    }
  });
});
