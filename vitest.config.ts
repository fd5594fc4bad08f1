import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Forks, not threads: tests start worker_threads and native code of their own.
    pool: 'forks',
    // CLI builds are recorded in the runs database: never in the developer's own one.
    env: { BETON_DB: join(tmpdir(), 'beton-vitest-runs.sqlite') },
  },
});
