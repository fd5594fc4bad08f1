/**
 * globalSetup of the e2e project (vitest.config.ts): one Chromium for every e2e file of the
 * run, started only when e2e files run (a project's globalSetup runs only when it has files),
 * closed at the end. Without Chromium nothing starts and the files skip or fail as
 * needChromium() says.
 */
import { chromium } from 'playwright-core';
import type { TestProject } from 'vitest/node';
import { HAVE_CHROMIUM, LAUNCH } from './chromium.js';

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (!HAVE_CHROMIUM) {
    project.provide('chromiumEndpoint', '');
    return undefined;
  }
  const server = await chromium.launchServer(LAUNCH);
  project.provide('chromiumEndpoint', server.wsEndpoint());
  return () => server.close();
}
