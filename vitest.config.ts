import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Forks, not threads: tests start worker_threads and native code of their own.
    pool: 'forks',
  },
});
