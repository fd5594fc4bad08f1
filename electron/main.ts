// Electron main entry (ESM; dist/electron/main.js). All the wiring is in app.ts.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { app } from 'electron';
import { startApp } from './app.js';

const here = (rel: string): string => fileURLToPath(new URL(rel, import.meta.url));

/** BETON_DEV_URL (npm run dev) is honoured only when running from a checkout, and only on loopback. */
function devUrl(): string | null {
  const raw = process.env.BETON_DEV_URL;
  if (!raw || app.isPackaged) return null;
  const u = new URL(raw);
  if (u.protocol !== 'http:' || !['localhost', '127.0.0.1', '[::1]'].includes(u.hostname))
    throw new Error(`BETON_DEV_URL must be http://localhost:PORT, got ${raw}`);
  return u.href;
}

function version(): string {
  try {
    return (JSON.parse(readFileSync(here('../../package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return app.getVersion();
  }
}

startApp({ indexHtml: here('../../renderer/dist/index.html'), preload: here('./preload.cjs'), devUrl: devUrl(), version: version() }).catch(
  (e: unknown) => {
    console.error(e);
    app.exit(1);
  },
);
