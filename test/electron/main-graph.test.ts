// Defect 9, what can run without Electron's binary: the main process's whole module graph as
// `npm start` runs it (dist/electron/main.js → app.js → beton-studio's dist/core) loads under Node with `electron`
// stubbed, and the runs database opens through the binding choice as Electron started from a
// checkout makes it (process.versions.electron and process.defaultApp set): first with the
// Electron build missing, which must answer SQLITE_BINDING_MISSING with what to run instead
// of crashing the app, then with a build in native-bindings/electron/<version>/.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { IPC, type Envelope } from '../../core/api/contract.js';

type Fn = (...a: never[]) => unknown;

const fake = vi.hoisted(() => {
  const state = { ipc: new Map<string, Fn>(), windows: [] as Array<{ loaded: string[]; url: string }>, exited: null as number | null };
  class BrowserWindow {
    static all: BrowserWindow[] = [];
    rec = { loaded: [] as string[], url: '' };
    webContents = { send: () => undefined, getURL: () => this.rec.url };
    constructor() {
      state.windows.push(this.rec);
      BrowserWindow.all.push(this);
    }
    static getAllWindows = (): BrowserWindow[] => BrowserWindow.all;
    static getFocusedWindow = (): BrowserWindow | null => BrowserWindow.all[0] ?? null;
    once(ev: string, fn: () => void): void {
      if (ev === 'ready-to-show') setImmediate(fn);
    }
    async loadFile(p: string): Promise<void> {
      this.rec.loaded.push(p);
      this.rec.url = new URL(`file://${p}`).href;
    }
    async loadURL(u: string): Promise<void> {
      this.rec.loaded.push(u);
      this.rec.url = u;
    }
    show(): void {}
    isDestroyed = (): boolean => false;
  }
  const electron = {
    app: {
      enableSandbox: () => undefined,
      on: () => undefined,
      whenReady: async () => undefined,
      requestSingleInstanceLock: () => true,
      quit: () => undefined,
      exit: (code: number) => (state.exited = code),
      isPackaged: false,
      getVersion: () => '0.0.0',
      getPath: () => '/tmp',
    },
    BrowserWindow,
    ipcMain: { handle: (ch: string, fn: Fn) => state.ipc.set(ch, fn) },
    session: {
      defaultSession: {
        webRequest: { onHeadersReceived: () => undefined },
        setPermissionRequestHandler: () => undefined,
        setPermissionCheckHandler: () => undefined,
      },
    },
    dialog: {
      showOpenDialog: async () => ({ canceled: true, filePaths: [] }),
      showSaveDialog: async () => ({ canceled: true }),
      showErrorBox: () => undefined,
    },
    shell: { openExternal: async () => undefined },
  };
  return { state, electron };
});
vi.mock('electron', () => ({ ...fake.electron, default: fake.electron }));

const ROOT = resolve(__dirname, '../..');
const ELECTRON = '41.0.4';
const tmp = mkdtempSync(join(tmpdir(), 'beton-main-graph-'));
const bindings = join(tmp, 'native-bindings');
const dbPath = join(tmp, 'runs.sqlite');
const nodeBuild = join(
  dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json')),
  'build',
  'Release',
  'better_sqlite3.node',
);
const INDEX = pathToFileURL(join(ROOT, 'renderer/dist/index.html')).href;
const saved = {
  electron: process.versions.electron,
  defaultApp: (process as { defaultApp?: boolean }).defaultApp,
  dir: process.env.BETON_NATIVE_BINDINGS,
  db: process.env.BETON_DB,
};

const call = (method: string): Promise<Envelope<unknown>> => {
  const h = fake.state.ipc.get(IPC.invoke) as unknown as (e: unknown, r: unknown) => Promise<Envelope<unknown>>;
  return h({ senderFrame: { url: INDEX, parent: null } }, { method, params: {} });
};

beforeAll(async () => {
  // Electron running a checkout (`electron dist/electron/main.js`), as npm start does.
  Object.defineProperty(process.versions, 'electron', { value: ELECTRON, configurable: true, enumerable: true });
  (process as { defaultApp?: boolean }).defaultApp = true;
  process.env.BETON_NATIVE_BINDINGS = bindings;
  process.env.BETON_DB = dbPath;
  // The compiled entry, built when missing or older than its sources (build:ts made dist/core).
  const main = join(ROOT, 'dist/electron/main.js');
  const newest = Math.max(...readdirSync(join(ROOT, 'electron')).map((n) => statSync(join(ROOT, 'electron', n)).mtimeMs));
  if (!existsSync(main) || statSync(main).mtimeMs < newest)
    execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'electron/tsconfig.json'], {
      cwd: ROOT,
      stdio: 'inherit',
    });
  await import(pathToFileURL(main).href);
  await vi.waitFor(() => expect(fake.state.windows[0]?.loaded.length).toBe(1));
});
afterAll(() => {
  if (saved.electron === undefined) delete (process.versions as Record<string, string>).electron;
  (process as { defaultApp?: boolean }).defaultApp = saved.defaultApp;
  for (const [k, v] of [
    ['BETON_NATIVE_BINDINGS', saved.dir],
    ['BETON_DB', saved.db],
  ] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  rmSync(tmp, { recursive: true, force: true });
});

describe('the Electron main module graph under Node (electron stubbed)', () => {
  it('loads: main.ts starts the app, registers the contract channel and opens the built index.html', () => {
    expect(fake.state.exited).toBeNull();
    expect(fake.state.ipc.has(IPC.invoke)).toBe(true);
    expect(fake.state.windows[0]!.loaded).toEqual([join(ROOT, 'renderer/dist/index.html')]);
  });

  it('without the Electron build of better-sqlite3 the runs calls answer SQLITE_BINDING_MISSING with what to run; the app keeps going', async () => {
    const r = await call('runs.list');
    expect(r.ok).toBe(false);
    const err = (r as { error: { code: string; message: string } }).error;
    expect(err.code).toBe('SQLITE_BINDING_MISSING');
    expect(err.message).toContain(join(bindings, 'electron', ELECTRON, 'better_sqlite3.node'));
    expect(err.message).toContain('npm run rebuild:electron');
    expect(existsSync(dbPath)).toBe(false);
    const env = await call('env.info');
    expect(env.ok).toBe(true);
  });

  it('with native-bindings/electron/<version>/better_sqlite3.node the runs database opens through it', async () => {
    const file = join(bindings, 'electron', ELECTRON, 'better_sqlite3.node');
    mkdirSync(dirname(file), { recursive: true });
    copyFileSync(nodeBuild, file); // Node's ABI: this process is Node standing in for Electron
    const r = await call('runs.list');
    expect(r).toEqual({ ok: true, value: [] });
    expect(existsSync(dbPath)).toBe(true);
    expect(createRequire(import.meta.url).cache[file]).toBeDefined();
  });
});
