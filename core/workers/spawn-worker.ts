import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * Set (to "1") by vitest.config.ts only when dist/ is built from the sources as they are now
 * (scripts/dist-fresh.mjs): workers of code running from TypeScript sources then start from
 * dist/'s compiled copy of the same file, without tsx (~1 s of loader hooks per worker start).
 */
export const WORKERS_FROM_DIST_ENV = 'BETON_WORKERS_FROM_DIST';

/** The module a worker runs: a file to start as it is, or a .ts file to start through tsx. */
export interface WorkerModule {
  url: URL;
  tsx: boolean;
}

/**
 * Which module `spawnWorker` starts for `relJs` next to `base`: compiled code runs the .js file;
 * code running from TypeScript sources runs dist/'s build of the same module when `fromDist`
 * (and that build exists), else the .ts file through tsx.
 */
export function workerModule(relJs: string, base: string, fromDist: boolean): WorkerModule {
  if (!base.endsWith('.ts')) return { url: new URL(relJs, base), tsx: false };
  const compiled = fromDist ? distTwin(relJs, base) : null;
  if (compiled) return { url: compiled, tsx: false };
  return { url: new URL(relJs.replace(/\.js$/, '.ts'), base), tsx: true };
}

/**
 * Starts a worker from a module next to `base` (pass import.meta.url), as `workerModule`
 * chooses; the tsx bootstrap registers tsx in the worker first, so the same code path is
 * exercised in every case.
 */
export function spawnWorker(relJs: string, base: string, workerData: unknown): Worker {
  const m = workerModule(relJs, base, process.env[WORKERS_FROM_DIST_ENV] === '1');
  if (!m.tsx) return new Worker(m.url, { workerData });
  const boot = `import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(m.url.href)}); })`;
  return new Worker(boot, { eval: true, workerData });
}

/** dist/core/…/x.js for a module under core/ (null elsewhere, e.g. test helpers, or when not built). */
function distTwin(relJs: string, base: string): URL | null {
  const at = base.lastIndexOf('/core/');
  if (at < 0) return null;
  const url = new URL(relJs, `${base.slice(0, at)}/dist${base.slice(at)}`);
  return existsSync(fileURLToPath(url)) ? url : null;
}
