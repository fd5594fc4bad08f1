import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** test/fixtures/fake-nvidia-smi, the stand-in for nvidia-smi. */
export const fakeNvidiaSmi = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'fake-nvidia-smi');

export interface FakeGpuPaths {
  /** PATH with a fake `nvidia-smi` first, then the original PATH. */
  withFake: string;
  /** PATH of one empty folder: no nvidia-smi (nor anything else) to find. */
  withoutGpu: string;
  cleanup(): void;
}

/**
 * Folders for PATH: one holding an `nvidia-smi` wrapper that runs the fixture with this
 * node (so neither the fixture's mode bits nor `node` on PATH matter), one empty.
 */
export function fakeGpuPaths(): FakeGpuPaths {
  const root = mkdtempSync(join(tmpdir(), 'beton-fake-gpu-'));
  const bin = join(root, 'bin');
  const empty = join(root, 'empty');
  mkdirSync(bin);
  mkdirSync(empty);
  const wrapper = join(bin, 'nvidia-smi');
  writeFileSync(wrapper, `#!/bin/sh\nexec "${process.execPath}" "${fakeNvidiaSmi}" "$@"\n`);
  chmodSync(wrapper, 0o755);
  return {
    withFake: `${bin}:${process.env.PATH ?? ''}`,
    withoutGpu: empty,
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** Runs `f` with PATH set to `path` (and FAKE_NVIDIA_SMI* from `env`), restoring both after. */
export async function withPath<T>(path: string, f: () => Promise<T>, env: Record<string, string> = {}): Promise<T> {
  const saved = { ...process.env };
  process.env.PATH = path;
  Object.assign(process.env, env);
  try {
    return await f();
  } finally {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Waits until `cond` holds, polling; gives up (without failing: the caller's asserts will) after `timeoutMs`. */
export async function until(cond: () => boolean, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond() && Date.now() < end) await sleep(20);
}
