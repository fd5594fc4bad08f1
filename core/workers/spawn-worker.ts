import { Worker } from 'node:worker_threads';

/**
 * Starts a worker from a module next to `base` (pass import.meta.url). Compiled code runs
 * the .js file; when running from TypeScript sources (tests, tsx) a small bootstrap
 * registers tsx in the worker first, so the same code path is exercised in both.
 */
export function spawnWorker(relJs: string, base: string, workerData: unknown): Worker {
  if (!base.endsWith('.ts')) return new Worker(new URL(relJs, base), { workerData });
  const url = new URL(relJs.replace(/\.js$/, '.ts'), base).href;
  const boot = `import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(url)}); })`;
  return new Worker(boot, { eval: true, workerData });
}
