/**
 * `beton serve --allow-remote s3://data/sets` in front of s3rver on loopback (in a worker
 * thread, test/helpers/remote-servers.ts) holding an FFCV fixture at URL_OK, and the same
 * file at URL_REFUSED outside the prefix: the e2e tests of the screens that open a URL.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { fixturePath } from '../helpers/fixtures.js';
import { fileBytes, startServers, type RemoteServers } from '../helpers/remote-servers.js';
import { serveApp, type AppSession } from './e2e-helpers.js';

export const URL_OK = 's3://data/sets/images_jpg.beton';
export const URL_REFUSED = 's3://other/images_jpg.beton';

/** Call inside a describe: s3rver's hooks are registered before serveApp's (the server's environment names its port). */
export function serveRemoteApp(prefix: string): AppSession {
  let srv: RemoteServers;
  beforeAll(async () => {
    srv = await startServers(['data', 'other']);
    await srv.put('data', 'sets/images_jpg.beton', fileBytes(fixturePath('images_jpg')));
    await srv.put('other', 'images_jpg.beton', fileBytes(fixturePath('images_jpg')));
  }, 60_000);
  afterAll(async () => {
    await srv?.stop();
  });
  return serveApp({ prefix, env: () => srv.env(), args: ['--allow-remote', 's3://data/sets'] });
}

/** The one line a screen shows for URL_REFUSED: the prefix that would allow it, the server's own words (its prefixes) in the tooltip. */
export async function expectRefused(page: Page, testId: string): Promise<void> {
  const refused = page.getByTestId(testId);
  await refused.waitFor();
  expect(await refused.getAttribute('data-code')).toBe('FORBIDDEN');
  expect(await refused.textContent()).toBe(
    `This server may not open ${URL_REFUSED}: to allow it, restart it with beton serve FOLDER --allow-remote s3://other/.`,
  );
  expect(await refused.getAttribute('title')).toContain('s3://data/sets');
}
