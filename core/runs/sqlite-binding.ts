import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BetonError } from '../format/errors.js';

/**
 * Which better-sqlite3 binary each runtime loads. better-sqlite3 is not a Node-API module:
 * its .node file works only in the runtime whose ABI it was compiled for. `npm install`
 * builds node_modules/better-sqlite3/build for Node (the CLI, `beton serve`, tests), and
 * Electron runs another ABI, so `npm start` from a checkout loads a copy built for Electron
 * and kept apart, at native-bindings/electron/<electron version>/better_sqlite3.node
 * (`npm run rebuild:electron`, which `npm start` and `npm run dev` run first). A packaged
 * app needs none of this: electron-builder rebuilds node_modules for Electron.
 */

/** What decides the choice; process's by default, given in tests. */
export interface SqliteRuntime {
  /** process.versions.electron: set only inside Electron. */
  electron?: string;
  /** process.defaultApp: true when Electron runs an app folder (`electron .`, npm start), absent when packaged. */
  defaultApp?: boolean;
  /** The folder holding electron/<version>/ (default: <package root>/native-bindings, or $BETON_NATIVE_BINDINGS). */
  bindingsDir?: string;
}

export const BINDING_FILE = 'better_sqlite3.node';

/** The command that builds the Electron binding (package.json). */
export const REBUILD_COMMAND = 'npm run rebuild:electron';

/** The package root: the nearest folder above this module with beton-studio's package.json (works from core/ and dist/core/). */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'beton-studio') return dir;
      } catch {
        // an unreadable package.json is not ours: keep climbing
      }
    }
    const up = dirname(dir);
    if (up === dir) return process.cwd();
    dir = up;
  }
}

export function currentRuntime(): SqliteRuntime {
  const electron = process.versions.electron;
  const dir = process.env.BETON_NATIVE_BINDINGS;
  return {
    ...(electron ? { electron } : {}),
    ...((process as { defaultApp?: boolean }).defaultApp ? { defaultApp: true } : {}),
    ...(dir ? { bindingsDir: dir } : {}),
  };
}

/** Where the Electron build of better-sqlite3 lives for this runtime. */
export function electronBindingPath(electron: string, bindingsDir: string = join(packageRoot(), 'native-bindings')): string {
  return join(bindingsDir, 'electron', electron, BINDING_FILE);
}

/**
 * better-sqlite3's `nativeBinding` for this runtime: undefined means its own lookup
 * (node_modules/better-sqlite3/build: Node, or a packaged Electron app). Electron running a
 * checkout gets the separate Electron build, and a clear error when it was never built.
 */
export function sqliteNativeBinding(rt: SqliteRuntime = currentRuntime()): string | undefined {
  if (!rt.electron || !rt.defaultApp) return undefined;
  const file = electronBindingPath(rt.electron, rt.bindingsDir);
  if (!existsSync(file)) {
    throw new BetonError(
      'SQLITE_BINDING_MISSING',
      `the runs database needs better-sqlite3 built for Electron ${rt.electron}, and ${file} does not exist`,
      {
        hint: `Run \`${REBUILD_COMMAND}\` in the checkout (npm start and npm run dev run it first; it needs Electron's headers from electronjs.org once). The CLI and beton serve keep working without it.`,
      },
    );
  }
  return file;
}

/**
 * A binary built for another runtime fails to load with ERR_DLOPEN_FAILED ("compiled against
 * a different Node.js version using NODE_MODULE_VERSION …"): said as what to run; other errors unchanged.
 */
export function sqliteBindingError(e: unknown, rt: SqliteRuntime = currentRuntime()): unknown {
  const err = e as NodeJS.ErrnoException;
  const text = err instanceof Error ? err.message : '';
  if (err?.code !== 'ERR_DLOPEN_FAILED' && !/NODE_MODULE_VERSION|was compiled against a different/.test(text)) return e;
  const runtime = rt.electron ? `Electron ${rt.electron}` : `Node ${process.versions.node}`;
  const hint =
    rt.electron && rt.defaultApp
      ? `Run \`${REBUILD_COMMAND}\` to rebuild the Electron copy.`
      : rt.electron
        ? 'Reinstall the app: its better-sqlite3 was not rebuilt for Electron.'
        : 'Run `npm rebuild better-sqlite3` (something rebuilt node_modules/better-sqlite3 for Electron in place).';
  return new BetonError(
    'SQLITE_BINDING_MISMATCH',
    `better-sqlite3's native binary cannot be loaded in ${runtime}: ${text.split('\n')[0]}`,
    { cause: e, hint },
  );
}
