// The desktop host's security, tested without Electron's binary: the window options, the
// CSP, the sandboxed preload (compiled and run against a stub `electron`), the main
// process's IPC checks and the native dialogs' argument checks.
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runInNewContext } from 'node:vm';
import ts from 'typescript';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { CSP } from '../../core/services/http-server.js';
import { BetonService } from '../../core/services/beton-service.js';
import { IPC, type Envelope } from '../../core/api/contract.js';
import { DIALOG, MAX_SAVE_BYTES } from '../../electron/channels.js';
import {
  createDialogHandlers,
  createIpcHandler,
  externalUrl,
  isRequestShape,
  openDialogOptions,
  permissionAllowed,
  trustedUrlPredicate,
  type DialogDeps,
  type SenderEvent,
} from '../../electron/ipc.js';
import { devContentSecurityPolicy, windowOptions } from '../../electron/window-options.js';

const ROOT = resolve(__dirname, '../..');
const tmp = mkdtempSync(join(tmpdir(), 'beton-electron-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const INDEX = pathToFileURL(join(ROOT, 'renderer/dist/index.html')).href;
const trusted = trustedUrlPredicate({ indexUrl: INDEX, devUrl: null });
const top = (url: string): SenderEvent => ({ senderFrame: { url, parent: null } });

describe('windowOptions', () => {
  const o = windowOptions('/app/dist/electron/preload.cjs');
  const w = o.webPreferences!;
  it('keeps every security setting', () => {
    expect(w.preload).toBe('/app/dist/electron/preload.cjs');
    expect(w.contextIsolation).toBe(true);
    expect(w.nodeIntegration).toBe(false);
    expect(w.nodeIntegrationInWorker).toBe(false);
    expect(w.nodeIntegrationInSubFrames).toBe(false);
    expect(w.sandbox).toBe(true);
    expect(w.webSecurity).toBe(true);
    expect(w.allowRunningInsecureContent).toBe(false);
    expect(w.webviewTag).toBe(false);
    expect(w.spellcheck).toBe(false);
    expect(w.experimentalFeatures).toBe(false);
    expect(w.navigateOnDragDrop).toBe(false);
    expect(w.enableBlinkFeatures).toBeUndefined();
    expect(w.additionalArguments).toBeUndefined();
  });
  it('is shown only when ready', () => {
    expect(o.show).toBe(false);
  });
});

describe('CSP', () => {
  const directives = new Map(
    CSP.split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([k, ...v]) => [k!, v]),
  );
  it("is strict: default-src 'self', no eval, no inline script, no plugins, no framing", () => {
    expect(CSP).toContain("default-src 'self'");
    expect(CSP).not.toContain('unsafe-eval');
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('object-src')).toEqual(["'none'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(directives.get('base-uri')).toEqual(["'none'"]);
    expect(directives.get('connect-src')).toEqual(["'self'"]);
  });
  it('the dev-server variant only adds the inline preamble and the HMR socket', () => {
    const dev = devContentSecurityPolicy(CSP, 'http://localhost:5173/');
    expect(dev).not.toContain('unsafe-eval');
    expect(dev).toContain("script-src 'self' 'unsafe-inline'");
    expect(dev).toContain("connect-src 'self' ws://localhost:5173");
    expect(dev).toContain("default-src 'self'");
    expect(dev).toContain("object-src 'none'");
  });
});

// ---------- the preload, run as Electron's sandbox runs it ----------

interface Stub {
  exposed: Map<string, Record<string, unknown>>;
  invokes: Array<[string, unknown]>;
  listeners: Map<string, Set<(...a: unknown[]) => void>>;
  required: string[];
}

function runPreload(code: string, reply: (channel: string, arg: unknown) => unknown = () => ({ ok: true, value: 'reply' })): Stub {
  const stub: Stub = { exposed: new Map(), invokes: [], listeners: new Map(), required: [] };
  const ipcRenderer = {
    invoke: async (channel: string, arg: unknown) => {
      stub.invokes.push([channel, arg]);
      return reply(channel, arg);
    },
    on: (channel: string, fn: (...a: unknown[]) => void) => {
      if (!stub.listeners.has(channel)) stub.listeners.set(channel, new Set());
      stub.listeners.get(channel)!.add(fn);
      return ipcRenderer;
    },
    removeListener: (channel: string, fn: (...a: unknown[]) => void) => {
      stub.listeners.get(channel)?.delete(fn);
      return ipcRenderer;
    },
    send: () => {
      throw new Error('the preload must not use ipcRenderer.send');
    },
  };
  const electron = {
    contextBridge: { exposeInMainWorld: (key: string, api: Record<string, unknown>) => stub.exposed.set(key, api) },
    ipcRenderer,
  };
  // A sandboxed preload's require gives `electron` (and a few Node polyfills), never local files.
  const req = (id: string): unknown => {
    stub.required.push(id);
    if (id === 'electron') return electron;
    throw new Error(`a sandboxed preload cannot require ${id}`);
  };
  const module = { exports: {} as Record<string, unknown> };
  runInNewContext(code, { require: req, module, exports: module.exports });
  return stub;
}

const PRELOAD_SRC = join(ROOT, 'electron/preload.cts');
const PRELOAD_BUILT = join(ROOT, 'dist/electron/preload.cjs');

function compiledPreloads(): Array<[string, string]> {
  const src = readFileSync(PRELOAD_SRC, 'utf8');
  const out = ts.transpileModule(src, {
    fileName: 'preload.cts',
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  const list: Array<[string, string]> = [['transpiled from electron/preload.cts', out]];
  // The file Electron loads, when it is built from the current source.
  try {
    if (statSync(PRELOAD_BUILT).mtimeMs >= statSync(PRELOAD_SRC).mtimeMs)
      list.push(['dist/electron/preload.cjs', readFileSync(PRELOAD_BUILT, 'utf8')]);
  } catch {
    // not built: npm run build:electron
  }
  return list;
}

describe.each(compiledPreloads())('preload (%s)', (_name, code) => {
  it('requires nothing but electron', () => {
    expect(runPreload(code).required).toEqual(['electron']);
  });

  it('exposes exactly beton {invoke, onEvent} and betonDialogs {openPath, saveText}, all functions', () => {
    const { exposed } = runPreload(code);
    expect([...exposed.keys()].sort()).toEqual(['beton', 'betonDialogs']);
    expect(Object.keys(exposed.get('beton')!).sort()).toEqual(['invoke', 'onEvent']);
    expect(Object.keys(exposed.get('betonDialogs')!).sort()).toEqual(['openPath', 'saveText']);
    for (const api of exposed.values()) for (const v of Object.values(api)) expect(typeof v).toBe('function');
  });

  it('invoke sends { method, params } on IPC.invoke only and returns the reply', async () => {
    const s = runPreload(code);
    const beton = s.exposed.get('beton') as { invoke: (m: string, p?: unknown) => Promise<unknown> };
    await expect(beton.invoke('env.info', {})).resolves.toEqual({ ok: true, value: 'reply' });
    await beton.invoke('runs.list');
    expect(s.invokes).toEqual([
      [IPC.invoke, { method: 'env.info', params: {} }],
      [IPC.invoke, { method: 'runs.list', params: {} }],
    ]);
  });

  it('onEvent listens on IPC.event, passes the payload only, and unsubscribes', () => {
    const s = runPreload(code);
    const beton = s.exposed.get('beton') as { onEvent: (cb: (e: unknown) => void) => () => void };
    const got: unknown[][] = [];
    const off = beton.onEvent((...args) => got.push(args));
    expect([...s.listeners.keys()]).toEqual([IPC.event]);
    const [listener] = [...s.listeners.get(IPC.event)!];
    const payload = { event: 'runs:changed', data: {} };
    listener!({ sender: 'the ipcRenderer event object' }, payload);
    expect(got).toEqual([[payload]]);
    off();
    expect(s.listeners.get(IPC.event)!.size).toBe(0);
    expect(() => beton.onEvent('not a function' as never)).toThrow(/expects a function/);
  });

  it('the dialogs send on the dialog channels main handles and return plain data', async () => {
    const s = runPreload(code);
    const d = s.exposed.get('betonDialogs') as {
      openPath: (k?: unknown) => Promise<unknown>;
      saveText: (n: string, t: string) => Promise<unknown>;
    };
    await expect(d.openPath('folder')).resolves.toBe('reply');
    const opts = { kind: 'file', title: '.beton file', filters: [{ name: 'Beton datasets', extensions: ['beton'] }] };
    await d.openPath(opts);
    await d.openPath();
    await expect(d.saveText('train.py', 'print(1)')).resolves.toBe('reply');
    expect(s.invokes).toEqual([
      [DIALOG.open, { kind: 'folder' }],
      [DIALOG.open, opts],
      [DIALOG.open, {}],
      [DIALOG.save, { name: 'train.py', text: 'print(1)' }],
    ]);
  });

  it('a dialog error envelope becomes a rejection with its message', async () => {
    const s = runPreload(code, () => ({ ok: false, error: { code: 'FAILED', message: 'EACCES: permission denied' } }));
    const d = s.exposed.get('betonDialogs') as { saveText: (n: string, t: string) => Promise<unknown> };
    await expect(d.saveText('a.py', 'x')).rejects.toThrow('EACCES: permission denied');
  });
});

describe('layers', () => {
  const imports = (file: string): Array<{ spec: string; typeOnly: boolean }> => {
    const src = readFileSync(join(ROOT, 'electron', file), 'utf8');
    const out: Array<{ spec: string; typeOnly: boolean }> = [];
    for (const m of src.matchAll(/^\s*import\s+(type\s+)?[^'"]*?(?:from\s+|require\()\s*['"]([^'"]+)['"]/gm))
      out.push({ spec: m[2]!, typeOnly: Boolean(m[1]) });
    for (const m of src.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) out.push({ spec: m[1]!, typeOnly: false });
    return out;
  };
  it('main-process files import only electron, node:*, the package root and each other', () => {
    const files = readdirSync(join(ROOT, 'electron')).filter((f) => f.endsWith('.ts'));
    expect(files).toContain('main.ts');
    for (const f of files) {
      for (const { spec } of imports(f)) {
        expect(
          spec === 'electron' || spec === 'beton-studio' || spec.startsWith('node:') || /^\.\/[\w-]+\.js$/.test(spec),
          `${f} imports ${spec}`,
        ).toBe(true);
      }
    }
  });
  it('the preload value-imports only electron; core/api for types only', () => {
    const list = imports('preload.cts');
    expect(list.filter((i) => !i.typeOnly).map((i) => i.spec)).toEqual(['electron']);
    for (const i of list.filter((x) => x.typeOnly)) expect(['electron', '../core/api/contract.js']).toContain(i.spec);
  });
});

// ---------- main process checks ----------

describe('trusted pages', () => {
  it('our index.html, with any route in the hash or query, and nothing else', () => {
    expect(trusted(INDEX)).toBe(true);
    expect(trusted(`${INDEX}#/dataset`)).toBe(true);
    expect(trusted(`${INDEX}?x=1`)).toBe(true);
    expect(trusted(pathToFileURL(join(ROOT, 'renderer/dist/other.html')).href)).toBe(false);
    expect(trusted('file:///etc/passwd')).toBe(false);
    expect(trusted('http://localhost:5173/')).toBe(false);
    expect(trusted('https://example.com/')).toBe(false);
    expect(trusted('not a url')).toBe(false);
    expect(trusted('')).toBe(false);
  });
  it('compares files, not spellings: percent-encoding differences still match', () => {
    const t = trustedUrlPredicate({
      indexUrl: pathToFileURL('/opt/Beton Studio/resources/app.asar/renderer/dist/index.html').href,
      devUrl: null,
    });
    expect(t('file:///opt/Beton%20Studio/resources/app.asar/renderer/dist/index.html#/build')).toBe(true);
    expect(t('file:///opt/Beton%20Studio/resources/app.asar/renderer/dist/%69ndex.html')).toBe(true);
    expect(t('file:///opt/Beton%20Studio/resources/app.asar/renderer/dist/index.html%2f..%2f..%2fx.html')).toBe(false);
    expect(t('file:///opt/Beton%20Studio/resources/app.asar/renderer/dist/../dist/index.html')).toBe(true); // the URL parser resolves ..
    expect(t('file://evil-host/opt/Beton%20Studio/resources/app.asar/renderer/dist/index.html')).toBe(false);
  });
  it('in dev mode: the dev server origin only', () => {
    const dev = trustedUrlPredicate({ indexUrl: null, devUrl: 'http://localhost:5173/' });
    expect(dev('http://localhost:5173/')).toBe(true);
    expect(dev('http://localhost:5173/src/main.tsx')).toBe(true);
    expect(dev('http://localhost:5174/')).toBe(false);
    expect(dev('http://127.0.0.1:5173/')).toBe(false);
    expect(dev(INDEX)).toBe(false);
  });
});

describe('createIpcHandler', () => {
  const fake = () => {
    const calls: Array<[unknown, unknown]> = [];
    return {
      calls,
      service: {
        call: async (method: unknown, params: unknown): Promise<Envelope<unknown>> => {
          calls.push([method, params]);
          return { ok: true, value: { echoed: method } };
        },
      },
    };
  };

  it('rejects untrusted senders before anything else', async () => {
    const f = fake();
    const h = createIpcHandler(f.service, trusted);
    const req = { method: 'env.info', params: {} };
    for (const ev of [
      top('https://evil.example/'),
      top('file:///tmp/evil.html'),
      { senderFrame: null },
      { senderFrame: { url: INDEX, parent: {} } },
    ]) {
      const r = await h(ev, req);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.code).toBe('FORBIDDEN');
    }
    expect(f.calls).toEqual([]);
  });

  it('rejects malformed requests', async () => {
    const f = fake();
    const h = createIpcHandler(f.service, trusted);
    class Req {
      method = 'env.info';
    }
    for (const req of [
      null,
      undefined,
      'env.info',
      42,
      ['env.info', {}],
      {},
      { method: 7 },
      { method: '' },
      { method: 'x'.repeat(65) },
      { method: 'env.info', params: {}, extra: 1 },
      new Req(),
    ]) {
      const r = await h(top(INDEX), req);
      expect(r.ok, JSON.stringify(req)).toBe(false);
      if (!r.ok) expect(r.error.code).toBe('BAD_REQUEST');
    }
    expect(f.calls).toEqual([]);
    expect(isRequestShape({ method: 'env.info' })).toBe(true);
  });

  it('passes valid requests to the service and returns its envelope', async () => {
    const f = fake();
    const h = createIpcHandler(f.service, trusted);
    await expect(h(top(`${INDEX}#/runs`), { method: 'runs.list', params: { limit: 5 } })).resolves.toEqual({
      ok: true,
      value: { echoed: 'runs.list' },
    });
    expect(f.calls).toEqual([['runs.list', { limit: 5 }]]);
  });

  it('turns a throwing service into a FAILED envelope', async () => {
    const h = createIpcHandler({ call: () => Promise.reject(new Error('boom')) }, trusted);
    await expect(h(top(INDEX), { method: 'env.info', params: {} })).resolves.toEqual({
      ok: false,
      error: { code: 'FAILED', message: 'boom' },
    });
  });

  it('with the real service: the contract validates params and names the bad key', async () => {
    const service = new BetonService({ roots: null, host: 'electron', dbPath: join(tmp, 'runs.sqlite') });
    try {
      const h = createIpcHandler(service, trusted);
      const info = await h(top(INDEX), { method: 'env.info', params: {} });
      expect(info.ok).toBe(true);
      if (info.ok) expect((info.value as { host: string }).host).toBe('electron');
      const bad = await h(top(INDEX), { method: 'datasets.preview', params: { path: '/x.beton', count: 1000 } });
      expect(bad.ok).toBe(false);
      if (!bad.ok) {
        expect(bad.error.code).toBe('BAD_REQUEST');
        expect(bad.error.message).toContain('count');
      }
      const unknown = await h(top(INDEX), { method: 'fs.rm', params: {} });
      expect(unknown.ok === false && unknown.error.code).toBe('UNKNOWN_METHOD');
    } finally {
      service.close();
    }
  });
});

describe('links and permissions', () => {
  it('only https links with a host and no credentials go to the OS browser', () => {
    expect(externalUrl('https://github.com/libffcv/ffcv')).toBe('https://github.com/libffcv/ffcv');
    for (const u of [
      'http://example.com/',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'smb://host/share',
      'https://user:pw@example.com/',
      'data:text/html,x',
      'nonsense',
    ]) {
      expect(externalUrl(u), u).toBeNull();
    }
  });
  it('denies every permission except clipboard writes from our page', () => {
    for (const p of ['media', 'geolocation', 'notifications', 'openExternal', 'clipboard-read', 'fullscreen', 'hid', 'serial'])
      expect(permissionAllowed(p, INDEX, trusted)).toBe(false);
    expect(permissionAllowed('clipboard-sanitized-write', INDEX, trusted)).toBe(true);
    expect(permissionAllowed('clipboard-sanitized-write', 'https://evil.example/', trusted)).toBe(false);
  });
});

describe('native dialogs', () => {
  it("'any' is a file-or-folder picker on macOS and a file picker elsewhere (they cannot show both)", () => {
    expect(openDialogOptions({ kind: 'any' }, 'darwin').properties).toEqual(['openFile', 'openDirectory']);
    expect(openDialogOptions({ kind: 'any' }, 'linux').properties).toEqual(['openFile']);
    expect(openDialogOptions({ kind: 'any' }, 'win32').properties).toEqual(['openFile']);
    expect(openDialogOptions({ kind: 'folder' }, 'linux')).toEqual({ title: 'Choose a folder', properties: ['openDirectory'] });
  });

  const deps = (over: Partial<DialogDeps> = {}) => {
    const log = { open: [] as unknown[], save: [] as unknown[], written: [] as Array<[string, string]> };
    const d: DialogDeps = {
      isTrustedUrl: trusted,
      showOpen: async (o) => {
        log.open.push(o);
        return { canceled: false, filePaths: ['/data/train'] };
      },
      showSave: async (o) => {
        log.save.push(o);
        return { canceled: false, filePath: join(tmp, 'saved.py') };
      },
      writeText: async (p, t) => {
        log.written.push([p, t]);
        await writeFile(p, t, 'utf8');
      },
      defaultDir: () => '/home/u/Downloads',
      joinPath: join,
      ...over,
    };
    return { log, h: createDialogHandlers(d) };
  };

  it('open: checks the sender and the options, returns the path or null', async () => {
    const { log, h } = deps();
    await expect(h.open(top(INDEX), { kind: 'folder' })).resolves.toEqual({ ok: true, value: '/data/train' });
    expect(log.open[0]).toMatchObject({ properties: ['openDirectory'] });
    await h.open(top(INDEX), { kind: 'beton' });
    expect(log.open[1]).toMatchObject({ properties: ['openFile'], filters: [{ extensions: ['beton'] }, { extensions: ['*'] }] });
    await h.open(top(INDEX), { kind: 'file', title: '.beton file', filters: [{ name: 'Beton datasets', extensions: ['beton'] }] });
    expect(log.open[2]).toEqual({
      title: '.beton file',
      properties: ['openFile'],
      filters: [
        { name: 'Beton datasets', extensions: ['beton'] },
        { name: 'All files', extensions: ['*'] },
      ],
    });
    await h.open(top(INDEX), {});
    expect(log.open[3]).toMatchObject({ properties: process.platform === 'darwin' ? ['openFile', 'openDirectory'] : ['openFile'] });
    const bad: unknown[] = [
      { kind: 'anything' },
      { kind: 'folder', defaultPath: '/etc' },
      'folder',
      [],
      { kind: 'file', title: 7 },
      { kind: 'file', title: 'x'.repeat(201) },
      { kind: 'file', filters: [{ name: 'x', extensions: ['../../x'] }] },
      { kind: 'file', filters: [{ name: 'x', extensions: [] }] },
      { kind: 'file', filters: [{ name: 'x', extensions: ['py'], properties: ['openDirectory'] }] },
      { kind: 'file', filters: Array.from({ length: 11 }, () => ({ name: 'x', extensions: ['py'] })) },
    ];
    for (const req of bad) {
      const r = await h.open(top(INDEX), req);
      expect(r.ok === false && r.error.code, JSON.stringify(req).slice(0, 80)).toBe('BAD_REQUEST');
    }
    const r = await h.open(top('https://evil.example/'), { kind: 'folder' });
    expect(r.ok === false && r.error.code).toBe('FORBIDDEN');
    expect(log.open).toHaveLength(4);
    const cancelled = deps({ showOpen: async () => ({ canceled: true, filePaths: [] }) });
    await expect(cancelled.h.open(top(INDEX), { kind: 'file' })).resolves.toEqual({ ok: true, value: null });
  });

  it('save: validates name and text (≤ 10 MB), writes where the user chose', async () => {
    const { log, h } = deps();
    const r = await h.save(top(INDEX), { name: 'train.py', text: 'from ffcv.loader import Loader\n' });
    expect(r).toEqual({ ok: true, value: join(tmp, 'saved.py') });
    expect(readFileSync(join(tmp, 'saved.py'), 'utf8')).toBe('from ffcv.loader import Loader\n');
    expect(log.save[0]).toMatchObject({
      defaultPath: join('/home/u/Downloads', 'train.py'),
      filters: [{ name: 'Python', extensions: ['py'] }, { extensions: ['*'] }],
    });
    const bad = [
      { name: '../../.bashrc', text: 'x' },
      { name: 'a/b.py', text: 'x' },
      { name: 'a\\b.py', text: 'x' },
      { name: '', text: 'x' },
      { name: '..', text: 'x' },
      { name: 'x'.repeat(256), text: 'x' },
      { name: 'ok.py', text: 42 },
      { name: 'ok.py', text: 'x'.repeat(MAX_SAVE_BYTES + 1) },
      { name: 'ok.py', text: 'é'.repeat(MAX_SAVE_BYTES / 2 + 1) }, // under the limit in characters, over it in UTF-8 bytes
      { name: 'ok.py', text: 'x', path: '/etc/passwd' },
    ];
    for (const req of bad) {
      const x = await h.save(top(INDEX), req);
      expect(x.ok === false && x.error.code, JSON.stringify(req).slice(0, 60)).toBe('BAD_REQUEST');
    }
    const forbidden = await h.save(top('file:///tmp/evil.html'), { name: 'a.py', text: 'x' });
    expect(forbidden.ok === false && forbidden.error.code).toBe('FORBIDDEN');
    expect(log.save).toHaveLength(1);
    expect(log.written).toHaveLength(1);
  });

  it('save: cancelled writes nothing; a write error comes back as FAILED', async () => {
    const cancelled = deps({ showSave: async () => ({ canceled: true }) });
    await expect(cancelled.h.save(top(INDEX), { name: 'a.json', text: '{}' })).resolves.toEqual({ ok: true, value: null });
    expect(cancelled.log.written).toEqual([]);
    const failing = deps({ writeText: vi.fn(async () => Promise.reject(new Error('EACCES: permission denied'))) });
    const r = await failing.h.save(top(INDEX), { name: 'a.json', text: '{}' });
    expect(r).toEqual({ ok: false, error: { code: 'FAILED', message: 'EACCES: permission denied' } });
  });
});
