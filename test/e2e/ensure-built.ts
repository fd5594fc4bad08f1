/**
 * The e2e files need the CLI (dist/) and the app's page (renderer/dist/) built: each is built
 * here when missing or older than its sources. The e2e project's globalSetup
 * (shared-chromium.ts) calls it once before any file starts, so that two files running at
 * once never build into the same folder together; serveApp calls it again (a no-op then) for
 * a file run without that setup.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Newest modification time under `p` (files only). */
function newest(p: string): number {
  if (!existsSync(p)) return 0;
  const st = statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  return readdirSync(p).reduce((m, n) => Math.max(m, newest(join(p, n))), 0);
}

/** The CLI and the renderer must be built: each is built here when missing or older than its sources. */
export function ensureBuilt(): void {
  const cli = join(ROOT, 'dist/core/cli/serve-command.js');
  if (!existsSync(cli) || statSync(cli).mtimeMs < newest(join(ROOT, 'core'))) {
    execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
      cwd: ROOT,
      stdio: 'inherit',
    });
  }
  const index = join(ROOT, 'renderer/dist/index.html');
  const sources = Math.max(
    newest(join(ROOT, 'renderer/src')),
    newest(join(ROOT, 'renderer/index.html')),
    newest(join(ROOT, 'renderer/public')),
    newest(join(ROOT, 'vite.config.ts')),
  );
  if (!existsSync(index) || statSync(index).mtimeMs < sources) {
    execFileSync(process.execPath, [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'], {
      cwd: ROOT,
      stdio: 'inherit',
    });
  }
}
