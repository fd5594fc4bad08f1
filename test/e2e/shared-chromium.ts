/**
 * globalSetup of the e2e project (vitest.config.ts), run only when e2e files run (a project's
 * globalSetup runs only when it has files): builds the CLI and the page once if stale
 * (ensure-built.ts: files running side by side must not build into one folder at once), and
 * starts one Chromium for every e2e file of the run, closed at the end. Without Chromium no
 * browser starts, and the files skip or fail as needChromium() says.
 */
import { chromium } from 'playwright-core';
import type { TestProject } from 'vitest/node';
import { HAVE_CHROMIUM, LAUNCH } from './chromium.js';
import { ensureBuilt } from './ensure-built.js';

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  ensureBuilt();
  if (!HAVE_CHROMIUM) {
    project.provide('chromiumEndpoint', '');
    return undefined;
  }
  const server = await chromium.launchServer(LAUNCH);
  project.provide('chromiumEndpoint', server.wsEndpoint());
  return () => server.close();
}
