// The main process's wiring (electron/app.ts) against a stub `electron` module: the window
// gets windowOptions, the only IPC handlers are the contract's and the dialogs', the CSP
// header is set, permissions are denied, navigation and new windows are blocked, service
// events reach the page, and quitting closes the service. (Electron's binary cannot be
// downloaded here; the real-browser tests run the same UI against `beton serve`.)
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CSP } from '../../core/services/http-server.js';
import { IPC, type ApiEvent, type Envelope } from '../../core/api/contract.js';
import { DIALOG } from '../../electron/channels.js';
import { windowOptions } from '../../electron/window-options.js';
import type * as AppModule from '../../electron/app.js';

type Fn = (...a: never[]) => unknown;

const fake = vi.hoisted(() => {
  const state = {
    appHandlers: new Map<string, Fn[]>(),
    ipc: new Map<string, Fn>(),
    windows: [] as Array<{ options: unknown; loaded: string[]; sent: Array<[string, unknown]>; url: string; shown: boolean }>,
    headersHook: null as
      | null
      | ((
          details: { responseHeaders?: Record<string, string[]> },
          cb: (r: { responseHeaders?: Record<string, string[]> }) => void,
        ) => void),
    permissionRequest: null as
      null | ((wc: unknown, permission: string, cb: (ok: boolean) => void, details: { requestingUrl: string }) => void),
    permissionCheck: null as null | ((wc: unknown, permission: string, origin: string, details: { requestingUrl?: string }) => boolean),
    opened: [] as string[],
    sandboxed: false,
    quitCalls: 0,
  };
  class BrowserWindow {
    static all: BrowserWindow[] = [];
    record: (typeof state.windows)[number];
    webContents: { send: (ch: string, v: unknown) => void; getURL: () => string };
    constructor(options: unknown) {
      this.record = { options, loaded: [], sent: [], url: '', shown: false };
      state.windows.push(this.record);
      const rec = this.record;
      this.webContents = { send: (ch, v) => rec.sent.push([ch, v]), getURL: () => rec.url };
      BrowserWindow.all.push(this);
    }
    static getAllWindows(): BrowserWindow[] {
      return BrowserWindow.all;
    }
    static getFocusedWindow(): BrowserWindow | null {
      return BrowserWindow.all[0] ?? null;
    }
    once(ev: string, fn: () => void): void {
      if (ev === 'ready-to-show') setImmediate(fn);
    }
    async loadFile(p: string): Promise<void> {
      this.record.loaded.push(p);
      this.record.url = new URL(`file://${p}`).href;
    }
    async loadURL(u: string): Promise<void> {
      this.record.loaded.push(u);
      this.record.url = u;
    }
    show(): void {
      this.record.shown = true;
    }
    isDestroyed(): boolean {
      return false;
    }
  }
  const app = {
    enableSandbox: () => {
      state.sandboxed = true;
    },
    on: (ev: string, fn: Fn) => {
      if (!state.appHandlers.has(ev)) state.appHandlers.set(ev, []);
      state.appHandlers.get(ev)!.push(fn);
    },
    whenReady: async () => undefined,
    requestSingleInstanceLock: () => true,
    quit: () => {
      state.quitCalls++;
    },
    getPath: () => '/home/u/Downloads',
  };
  const electron = {
    app,
    BrowserWindow,
    ipcMain: {
      handle: (ch: string, fn: Fn) => {
        if (state.ipc.has(ch)) throw new Error(`second handler for ${ch}`);
        state.ipc.set(ch, fn);
      },
    },
    session: {
      defaultSession: {
        webRequest: { onHeadersReceived: (fn: typeof state.headersHook) => (state.headersHook = fn) },
        setPermissionRequestHandler: (fn: typeof state.permissionRequest) => (state.permissionRequest = fn),
        setPermissionCheckHandler: (fn: typeof state.permissionCheck) => (state.permissionCheck = fn),
      },
    },
    dialog: {
      showOpenDialog: async () => ({ canceled: true, filePaths: [] }),
      showSaveDialog: async () => ({ canceled: true }),
      showErrorBox: () => undefined,
    },
    shell: {
      openExternal: async (u: string) => {
        state.opened.push(u);
      },
    },
  };
  return { state, electron };
});

vi.mock('electron', () => ({ ...fake.electron, default: fake.electron }));

const ROOT = resolve(__dirname, '../..');
const tmp = mkdtempSync(join(tmpdir(), 'beton-electron-main-'));
const indexHtml = join(ROOT, 'renderer/dist/index.html');
const preload = join(ROOT, 'dist/electron/preload.cjs');
const INDEX = pathToFileURL(indexHtml).href;
const top = (url: string) => ({ senderFrame: { url, parent: null } });
let started: Awaited<ReturnType<typeof AppModule.startApp>>;

beforeAll(async () => {
  const { startApp } = await import('../../electron/app.js');
  started = await startApp({ indexHtml, preload, devUrl: null, version: '9.9.9', dbPath: join(tmp, 'runs.sqlite'), quitGraceMs: 5000 });
});
afterAll(() => {
  started?.service.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe('electron main (stubbed electron)', () => {
  it('sandboxes every renderer and opens one window with windowOptions on the built index.html', () => {
    expect(fake.state.sandboxed).toBe(true);
    expect(fake.state.windows).toHaveLength(1);
    expect(fake.state.windows[0]!.options).toEqual(windowOptions(preload));
    expect(fake.state.windows[0]!.loaded).toEqual([indexHtml]);
  });

  it('registers exactly the contract channel and the two dialog channels', () => {
    expect([...fake.state.ipc.keys()].sort()).toEqual([IPC.invoke, DIALOG.open, DIALOG.save].sort());
  });

  it('answers contract calls from our page only', async () => {
    const h = fake.state.ipc.get(IPC.invoke)! as (e: unknown, r: unknown) => Promise<Envelope<{ host: string; version: string }>>;
    const ok = await h(top(INDEX), { method: 'env.info', params: {} });
    expect(ok.ok && ok.value.host).toBe('electron');
    expect(ok.ok && ok.value.version).toBe('9.9.9');
    const evil = await h(top('https://evil.example/'), { method: 'env.info', params: {} });
    expect(evil.ok === false && evil.error.code).toBe('FORBIDDEN');
    const dlg = fake.state.ipc.get(DIALOG.open)! as (e: unknown, r: unknown) => Promise<Envelope<unknown>>;
    await expect(dlg(top(INDEX), { kind: 'folder' })).resolves.toEqual({ ok: true, value: null });
    const evilDlg = await dlg(top('file:///tmp/x.html'), { kind: 'folder' });
    expect(evilDlg.ok).toBe(false);
  });

  it('sets the CSP header on every response, replacing any other', () => {
    let got: Record<string, string[]> | undefined;
    fake.state.headersHook!(
      { responseHeaders: { 'content-security-policy': ['default-src *'], 'X-Other': ['1'] } },
      (r) => (got = r.responseHeaders),
    );
    expect(got).toEqual({ 'X-Other': ['1'], 'Content-Security-Policy': [CSP] });
    fake.state.headersHook!({}, (r) => (got = r.responseHeaders));
    expect(got).toEqual({ 'Content-Security-Policy': [CSP] });
  });

  it('denies permission requests and checks (clipboard writes from our page excepted)', () => {
    const answers: boolean[] = [];
    fake.state.permissionRequest!({}, 'media', (ok) => answers.push(ok), { requestingUrl: INDEX });
    fake.state.permissionRequest!({}, 'geolocation', (ok) => answers.push(ok), { requestingUrl: INDEX });
    fake.state.permissionRequest!({}, 'clipboard-sanitized-write', (ok) => answers.push(ok), { requestingUrl: 'https://evil.example/' });
    fake.state.permissionRequest!({}, 'clipboard-sanitized-write', (ok) => answers.push(ok), { requestingUrl: INDEX });
    expect(answers).toEqual([false, false, false, true]);
    expect(fake.state.permissionCheck!({}, 'notifications', 'file://', { requestingUrl: INDEX })).toBe(false);
  });

  it('blocks navigation away from the app, new windows and webviews; https links go to the OS browser', () => {
    const handlers = new Map<string, (ev: { preventDefault: () => void }, url?: string) => void>();
    let openHandler: ((d: { url: string }) => { action: string }) | null = null;
    const contents = {
      on: (ev: string, fn: (ev: { preventDefault: () => void }, url?: string) => void) => handlers.set(ev, fn),
      setWindowOpenHandler: (fn: typeof openHandler) => (openHandler = fn),
    };
    for (const fn of fake.state.appHandlers.get('web-contents-created')!) (fn as (e: unknown, c: unknown) => void)({}, contents);
    const prevented = (ev: string, url: string): boolean => {
      let p = false;
      handlers.get(ev)!({ preventDefault: () => (p = true) }, url);
      return p;
    };
    expect(prevented('will-navigate', 'https://evil.example/')).toBe(true);
    expect(prevented('will-navigate', 'file:///etc/passwd')).toBe(true);
    expect(prevented('will-navigate', `${INDEX}#/runs`)).toBe(false);
    expect(prevented('will-redirect', 'https://evil.example/')).toBe(true);
    expect(prevented('will-attach-webview', 'https://evil.example/')).toBe(true);
    expect(openHandler!({ url: 'https://github.com/libffcv/ffcv' })).toEqual({ action: 'deny' });
    expect(openHandler!({ url: 'file:///etc/passwd' })).toEqual({ action: 'deny' });
    expect(openHandler!({ url: 'javascript:alert(1)' })).toEqual({ action: 'deny' });
    expect(fake.state.opened).toEqual(['https://github.com/libffcv/ffcv']);
  });

  it('forwards service events to the page: a build started over IPC ends with one jobs:finished', async () => {
    const src = join(tmp, 'empty-folder');
    mkdirSync(join(src, 'a'), { recursive: true });
    const h = fake.state.ipc.get(IPC.invoke)! as (e: unknown, r: unknown) => Promise<Envelope<{ jobId: string }>>;
    const r = await h(top(INDEX), {
      method: 'builds.start',
      params: { config: { source: { type: 'image_folder', path: src }, output: join(tmp, 'x.beton'), numWorkers: 1 } },
    });
    expect(r.ok, JSON.stringify(r)).toBe(true);
    const jobId = r.ok ? r.value.jobId : '';
    expect(started.service.runningJobs).toBe(1);
    const sent = fake.state.windows[0]!.sent;
    await vi.waitFor(() => expect(sent.some(([, e]) => (e as ApiEvent).event === 'jobs:finished')).toBe(true), { timeout: 60_000 });
    expect(sent.every(([ch]) => ch === IPC.event)).toBe(true);
    const finished = sent
      .filter(([, e]) => (e as ApiEvent).event === 'jobs:finished')
      .map(([, e]) => (e as Extract<ApiEvent, { event: 'jobs:finished' }>).data);
    expect(finished.map((f) => f.jobId)).toEqual([jobId]);
    expect(started.service.runningJobs).toBe(0);
  });

  it('quits cleanly: before-quit closes the service', () => {
    const close = vi.spyOn(started.service, 'close');
    let prevented = false;
    for (const fn of fake.state.appHandlers.get('before-quit')!) (fn as (e: unknown) => void)({ preventDefault: () => (prevented = true) });
    expect(close).toHaveBeenCalledTimes(1);
    expect(prevented).toBe(false); // no job running: nothing to wait for
    close.mockRestore();
  });
});
