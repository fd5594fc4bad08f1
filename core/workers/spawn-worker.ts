import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * Set (to "1") by vitest.config.ts only when dist/ is built from the sources as they are now
 * (scripts/dist-fresh.mjs): workers of code running from TypeScript sources then start from
 * dist/'s compiled copy of the same file, without tsx (~1 s of loader hooks per worker start).
 */
export const WORKERS_FROM_DIST_ENV = 'BETON_WORKERS_FROM_DIST';

/**
 * Starts a worker from a module next to `base` (pass import.meta.url). Compiled code runs
 * the .js file; when running from TypeScript sources (tests, tsx) the worker runs dist/'s
 * build of the same module when the test run says dist/ is fresh, else a small bootstrap
 * registers tsx in the worker first, so the same code path is exercised in every case.
 */
export function spawnWorker(relJs: string, base: string, workerData: unknown): Worker {
  if (!base.endsWith('.ts')) return new Worker(new URL(relJs, base), { workerData });
  const compiled = process.env[WORKERS_FROM_DIST_ENV] === '1' ? distTwin(relJs, base) : null;
  if (compiled) return new Worker(compiled, { workerData });
  const url = new URL(relJs.replace(/\.js$/, '.ts'), base).href;
  const boot = `import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(url)}); })`;
  return new Worker(boot, { eval: true, workerData });
}

/** dist/core/…/x.js for a module under core/ (null elsewhere, e.g. test helpers, or when not built). */
function distTwin(relJs: string, base: string): URL | null {
  const at = base.lastIndexOf('/core/');
  if (at < 0) return null;
  const url = new URL(relJs, `${base.slice(0, at)}/dist${base.slice(at)}`);
  return existsSync(fileURLToPath(url)) ? url : null;
}
