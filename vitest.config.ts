import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';
import { TEST_FILES } from './test/tiers.js';

// Every test file: `npm test`. vitest.fast.config.ts (`npm run test:fast`) is this less the
// slow tier listed in test/tiers.ts.
const E2E = 'test/e2e/**';
export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Forks, not threads: tests start worker_threads and native code of their own.
    pool: 'forks',
    // Two files at a time even on 2 cores (vitest's default is cores - 1, one file at a time
    // there): most files wait on child processes, worker threads and the disk much of the time.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // CLI builds are recorded in the runs database: never in the developer's own one.
    env: { BETON_DB: join(tmpdir(), 'beton-vitest-runs.sqlite') },
    // Two projects, together every test file (TEST_FILES), only so that the e2e files get a
    // globalSetup of their own: one Chromium for all of them (test/e2e/shared-chromium.ts),
    // started only when e2e files run. Both take every option above (and the fast tier's
    // excludes) from here; their include lists are their own (`extends` would add this
    // level's include to both).
    projects: [
      { extends: true, test: { name: 'node', include: TEST_FILES, exclude: [...configDefaults.exclude, E2E] } },
      { extends: true, test: { name: 'e2e', include: [`${E2E}/*.test.ts`], globalSetup: ['test/e2e/shared-chromium.ts'] } },
    ],
  },
});
