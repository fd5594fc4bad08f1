/**
 * Which module a worker starts (core/workers/spawn-worker.ts): the compiled twin in dist/ when
 * the test run says dist/ is fresh and the twin exists, else the .ts source through tsx; code
 * outside core/ (test helpers) always through tsx; compiled code as it is.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { workerModule } from '../../core/workers/spawn-worker.js';

const ROOT = join(import.meta.dirname, '../..');
const base = pathToFileURL(join(ROOT, 'core/loader/start-workers.ts')).href;

describe('workerModule', () => {
  it.skipIf(!existsSync(join(ROOT, 'dist/core/loader/decode-worker.js')))('from dist: the compiled twin of a core module', () => {
    expect(workerModule('./decode-worker.js', base, true)).toEqual({
      url: pathToFileURL(join(ROOT, 'dist/core/loader/decode-worker.js')),
      tsx: false,
    });
  });

  it('not from dist, or no twin built: the .ts source through tsx', () => {
    expect(workerModule('./decode-worker.js', base, false)).toEqual({
      url: pathToFileURL(join(ROOT, 'core/loader/decode-worker.ts')),
      tsx: true,
    });
    const missing = workerModule('./no-such-worker.js', base, true);
    expect(missing).toEqual({ url: pathToFileURL(join(ROOT, 'core/loader/no-such-worker.ts')), tsx: true });
  });

  it('a test helper (outside core/) goes through tsx; compiled code runs its .js file', () => {
    const helper = pathToFileURL(join(ROOT, 'test/helpers/remote-servers.ts')).href;
    expect(workerModule('./remote-servers-worker.js', helper, true).tsx).toBe(true);
    const compiled = pathToFileURL(join(ROOT, 'dist/core/loader/start-workers.js')).href;
    expect(workerModule('./decode-worker.js', compiled, false)).toEqual({
      url: pathToFileURL(join(ROOT, 'dist/core/loader/decode-worker.js')),
      tsx: false,
    });
  });
});
