/**
 * End to end: the Profile screen's sweep and the Export screen take a dataset URL typed into
 * their file field. s3rver on loopback (in a worker thread, test/helpers/remote-servers.ts)
 * holds an FFCV fixture; `beton serve --allow-remote s3://data/sets` reads it. A sweep over
 * the URL ends in a verdict; the export's code names the URL and has the file's pipelines; a
 * URL outside --allow-remote is the server's FORBIDDEN, said on each screen. Screenshots:
 * profile-url.png, export-url.png.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { needChromium, shot } from './e2e-helpers.js';
import { expectVerdictSays } from './verdict-says.js';
import { expectRefused, serveRemoteApp, URL_OK, URL_REFUSED } from './remote-app.js';

describe.skipIf(!needChromium())('Profile and Export screens: a dataset by URL, end to end', () => {
  const app = serveRemoteApp('beton-e2e-url-screens-');
  const { problems } = app;
  let page: Page;
  beforeAll(() => {
    page = app.page;
  });

  it('the Profile sweep runs over an allowed URL to a verdict; a URL outside --allow-remote is refused', async () => {
    await page.getByTestId('nav-profile').click();
    await page.getByTestId('mode-grid').click();
    expect(await page.getByTestId('profile-file').getAttribute('placeholder')).toContain('s3://');
    await page.getByTestId('profile-file').fill(URL_REFUSED);
    await page.getByTestId('profile-workers').fill('1');
    await page.getByTestId('profile-batch').fill('4');
    await page.getByTestId('profile-seconds').fill('1');
    await page.getByTestId('profile-warmup').fill('1');
    await page.getByTestId('profile-start').click();
    // One line with the prefix that would allow it, as on the Dataset screen.
    await expectRefused(page, 'url-refused');

    await page.getByTestId('profile-file').fill(URL_OK);
    await page.getByTestId('profile-start').click();
    await page.getByTestId('verdict').waitFor({ timeout: 120_000 });
    await page.locator('[data-testid=profile-status][data-status=ok]').waitFor();
    await expectVerdictSays(page);
    await shot(page, 'profile-url');
  }, 180_000);

  it("the Export screen reads the URL's fields and writes code naming it; a refused URL says FORBIDDEN", async () => {
    await page.getByTestId('nav-export').click();
    expect(await page.getByTestId('export-file').getAttribute('placeholder')).toContain('s3://');
    await page.getByTestId('export-file').fill(URL_REFUSED);
    await expectRefused(page, 'url-refused');

    await page.getByTestId('export-file').fill(URL_OK);
    await page.getByTestId('format-python').click();
    await page.locator('p.muted:has-text("Pipelines for image (rgb_image), label (int)")').waitFor();
    await page.getByTestId('export-generate').click();
    await page.locator(`[data-testid=code-block]:has-text("${URL_OK}")`).waitFor();
    const code = (await page.getByTestId('code-block').textContent()) ?? '';
    expect(code).toContain('Loader(');
    expect(code).toContain('"label": [IntDecoder(), ToTensor()]');
    await shot(page, 'export-url');
    // The refusals' 403s are the browser's console lines for failed fetches, provoked here.
    expect(problems.filter((p) => !(p.includes('status of 403') && p.includes('/api/')))).toEqual([]);
  }, 60_000);
});
