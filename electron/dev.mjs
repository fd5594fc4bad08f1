#!/usr/bin/env node
// `npm run dev`: the Vite dev server (hot reload of renderer/) plus Electron pointed at it
// through BETON_DEV_URL. Main and preload are compiled once first (npm run build:electron);
// restart this command after changing electron/ or core/.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';

const PORT = Number(process.env.BETON_DEV_PORT ?? 5173);
// The Vite config binds 127.0.0.1 (not "localhost", which may resolve to ::1).
const url = `http://127.0.0.1:${PORT}/`;
const require = createRequire(import.meta.url);
const children = [];

function run(cmd, args, env = {}) {
  const child = spawn(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  children.push(child);
  return child;
}

function stopAll(code) {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
  process.exit(code);
}

async function waitForPort(port, ms) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const up = await new Promise((resolve) => {
      const s = connect(port, '127.0.0.1', () => {
        s.end();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (up) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the Vite dev server did not open port ${port} within ${ms / 1000} s`);
}

const vitePkg = require.resolve('vite/package.json');
const viteBin = join(dirname(vitePkg), require(vitePkg).bin.vite);
const vite = run(process.execPath, [viteBin, '--port', String(PORT), '--strictPort']);
vite.on('exit', (code) => stopAll(code ?? 1));
process.on('SIGINT', () => stopAll(0));
process.on('SIGTERM', () => stopAll(0));

try {
  await waitForPort(PORT, 60_000);
  // `electron` (the npm package) gives the downloaded binary's path; it throws when the
  // binary was never downloaded (ELECTRON_SKIP_BINARY_DOWNLOAD).
  const electronBinary = require('electron');
  if (typeof electronBinary !== 'string') throw new Error('the electron package did not give a binary path');
  const electron = run(electronBinary, ['dist/electron/main.js'], { BETON_DEV_URL: url });
  electron.on('exit', (code) => stopAll(code ?? 0));
} catch (e) {
  process.stderr.write(`npm run dev: ${e instanceof Error ? e.message : String(e)}\n`);
  stopAll(1);
}
