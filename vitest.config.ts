import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';
import { WORKERS_FROM_DIST_ENV } from './core/workers/spawn-worker.js';
import { distIsFresh } from './scripts/dist-fresh.mjs';
import { ISOLATED_FILES, SLOW_FILES, SLOW_FOLDERS, TEST_FILES } from './test/tiers.js';

// Every test file: `npm test`. vitest.fast.config.ts (`npm run test:fast`) is this less the
// slow tier listed in test/tiers.ts.
const E2E = 'test/e2e/**';
// Isolated, as every file was before the fast tier shared processes: the files that need it
// (test/tiers.ts ISOLATED_FILES), and the slow tier (Python, installs, kill loops, scale; it
// spawns and kills processes and namespaces of its own), e2e aside, in a project of its own.
const ISOLATED = Object.keys(ISOLATED_FILES);
const SLOW = [
  ...Object.keys(SLOW_FOLDERS)
    .filter((d) => d !== 'test/e2e/')
    .flatMap((d) => TEST_FILES.map((glob) => glob.replace(/^test\//, d))),
  ...Object.keys(SLOW_FILES).filter((f) => !(f in ISOLATED_FILES)),
];
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
    env: {
      BETON_DB: join(tmpdir(), 'beton-vitest-runs.sqlite'),
      // Worker threads start from dist/ when it is built from today's sources (npm test and
      // test:fast build it first): the same code, without tsx in every worker (~1 s a start).
      // A stale dist (a file run by hand after an edit) keeps the tsx bootstrap.
      [WORKERS_FROM_DIST_ENV]: distIsFresh(import.meta.dirname) ? '1' : '0',
    },
    // Four projects, together every test file (TEST_FILES): node (shared processes), isolated,
    // slow and e2e, which gets a globalSetup of its own: one Chromium for all of them
    // (test/e2e/shared-chromium.ts), started only when e2e files run. All take every option
    // above (and the fast tier's excludes) from here; their include lists are their own
    // (`extends` would add this level's include to each).
    //
    // The node project runs its files without isolation: a worker process keeps its module
    // cache from one file to the next, so the ~0.5 s of imports (core, zod, sharp, the AWS SDK)
    // is paid once per worker instead of once per file (88 small files: 83 s → 54 s). Files
    // must leave process.env, spies and globals as they found them; the few that replace
    // modules with vi.mock or register process-wide state, and the slow tier, run isolated.
    projects: [
      {
        extends: true,
        test: {
          name: 'node',
          include: TEST_FILES,
          exclude: [...configDefaults.exclude, E2E, ...ISOLATED, ...SLOW],
          isolate: false,
          // Fails a file that leaves process.env changed, and restores it for the next file.
          setupFiles: ['test/helpers/shared-process-guard.ts'],
        },
      },
      // Workers through tsx here: a registered field type's module is one of the test's .ts files.
      { extends: true, test: { name: 'isolated', include: ISOLATED, env: { [WORKERS_FROM_DIST_ENV]: '0' } } },
      // The slow tier keeps the dist/ workers (a loader per case: 69 of them through tsx in
      // test/interop/loader-orders took 102 s of its 120 s on a quiet machine).
      { extends: true, test: { name: 'slow', include: SLOW } },
      { extends: true, test: { name: 'e2e', include: [`${E2E}/*.test.ts`], globalSetup: ['test/e2e/shared-chromium.ts'] } },
    ],
  },
});
