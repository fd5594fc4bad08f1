/**
 * The headless Chromium of the e2e files: where it is and how it starts. One browser serves
 * a whole `npm test` run: shared-chromium.ts (the e2e project's globalSetup) starts it and
 * hands its endpoint to the files, which connect and open their own context (cookies and
 * storage are per context, so files stay apart); a file run without that setup launches
 * its own (e2e-helpers.ts, browserForFile). A launch per file cost ~2.5 s of a loaded machine's wall time, 18 times.
 */
import { existsSync } from 'node:fs';
import type { LaunchOptions } from 'playwright-core';

export const CHROMIUM = process.env.BETON_CHROMIUM ?? '/usr/bin/chromium';
export const HAVE_CHROMIUM = existsSync(CHROMIUM);

export const LAUNCH: LaunchOptions = {
  executablePath: CHROMIUM,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
};

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared browser's websocket endpoint ('' when none was started). */
    chromiumEndpoint: string;
  }
}
