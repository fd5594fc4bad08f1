/**
 * The setup most remote test files share: the loopback servers (remote-servers.ts) started
 * once per file, the file's data put in place, the servers' environment in process.env for
 * the file's duration, and everything undone after (process.env restored: test files may
 * share a process), with a scratch folder removed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startServers, type RemoteServers } from './remote-servers.js';
import { restoreEnv } from './restore-env.js';

export interface RemoteTestFile {
  /** The servers (set in beforeAll). */
  readonly srv: RemoteServers;
  /** The file's scratch folder (exists from the start). */
  readonly dir: string;
}

export interface RemoteTestFileOptions {
  /** Puts the file's data on the servers (before the environment is set). */
  prepare?: (srv: RemoteServers, dir: string) => Promise<void>;
  /** What to add to process.env (default: the SDK's configuration for s3rver). */
  env?: (srv: RemoteServers, dir: string) => Record<string, string>;
}

/** Registers the beforeAll/afterAll of a remote test file; call at the top level of the file. */
export function remoteTestFile(buckets: string[], options: RemoteTestFileOptions = {}): RemoteTestFile {
  const saved = { ...process.env };
  const state: { srv?: RemoteServers; dir: string } = { dir: mkdtempSync(join(tmpdir(), 'beton-remote-')) };
  beforeAll(async () => {
    state.srv = await startServers(buckets);
    await options.prepare?.(state.srv, state.dir);
    Object.assign(process.env, options.env ? options.env(state.srv, state.dir) : state.srv.env());
  }, 60_000);
  afterAll(async () => {
    restoreEnv(saved);
    await state.srv?.stop();
    rmSync(state.dir, { recursive: true, force: true });
  });
  return {
    get srv(): RemoteServers {
      if (!state.srv) throw new Error('remoteTestFile: the servers start in beforeAll');
      return state.srv;
    },
    get dir(): string {
      return state.dir;
    },
  };
}
