import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { TEST_FILES } from './test/tiers.js';

// Every test file: `npm test`. vitest.fast.config.ts (`npm run test:fast`) is this less the
// slow tier listed in test/tiers.ts.
export default defineConfig({
  test: {
    include: TEST_FILES,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Forks, not threads: tests start worker_threads and native code of their own.
    pool: 'forks',
    // CLI builds are recorded in the runs database: never in the developer's own one.
    env: { BETON_DB: join(tmpdir(), 'beton-vitest-runs.sqlite') },
  },
});
