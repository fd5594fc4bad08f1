import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { app, BrowserWindow, dialog, ipcMain, session, shell, type WebContents } from 'electron';
import { BetonService, CSP, IPC, type ApiEvent } from 'beton-studio';
import { DIALOG } from './channels.js';
import { createDialogHandlers, createIpcHandler, externalUrl, permissionAllowed, trustedUrlPredicate } from './ipc.js';
import { devContentSecurityPolicy, windowOptions } from './window-options.js';

export interface AppOptions {
  /** The built renderer's index.html (renderer/dist/index.html). */
  indexHtml: string;
  /** The compiled sandboxed preload (dist/electron/preload.cjs). */
  preload: string;
  /** `npm run dev`: the Vite dev server to load instead of indexHtml (never in a packaged app). */
  devUrl: string | null;
  version: string;
  /** The runs database; default: $BETON_DB or the per-user data folder. */
  dbPath?: string;
  /** How long quitting waits for cancelled jobs to remove their temporary files. */
  quitGraceMs?: number;
}

/**
 * The main process: one window, one BetonService, the contract on IPC.
 *
 * Nothing heavy runs on this thread: builds and loaders encode and decode in worker
 * threads (DatasetWriter's and Loader's pools), profiles sample other processes, and
 * previews are a few small thumbnails; IPC carries envelopes and throttled events only.
 */
export async function startApp(o: AppOptions): Promise<{ service: BetonService }> {
  // Every renderer in Chromium's sandbox, whatever its options say (must precede 'ready').
  app.enableSandbox();

  const indexUrl = pathToFileURL(o.indexHtml).href;
  const isTrustedUrl = trustedUrlPredicate({ indexUrl: o.devUrl ? null : indexUrl, devUrl: o.devUrl });
  const csp = o.devUrl ? devContentSecurityPolicy(CSP, o.devUrl) : CSP;

  const service = new BetonService({ roots: null, host: 'electron', version: o.version, ...(o.dbPath ? { dbPath: o.dbPath } : {}) });

  ipcMain.handle(IPC.invoke, createIpcHandler(service, isTrustedUrl));
  const dialogs = createDialogHandlers({
    isTrustedUrl,
    showOpen: (opts) => {
      const win = BrowserWindow.getFocusedWindow();
      return win ? dialog.showOpenDialog(win, opts) : dialog.showOpenDialog(opts);
    },
    showSave: (opts) => {
      const win = BrowserWindow.getFocusedWindow();
      return win ? dialog.showSaveDialog(win, opts) : dialog.showSaveDialog(opts);
    },
    writeText: (path, text) => writeFile(path, text, 'utf8'),
    defaultDir: () => {
      try {
        return app.getPath('downloads');
      } catch {
        return app.getPath('home');
      }
    },
    joinPath: join,
  });
  ipcMain.handle(DIALOG.open, (e, req: unknown) => dialogs.open(e, req));
  ipcMain.handle(DIALOG.save, (e, req: unknown) => dialogs.save(e, req));

  // Service events go to the app's pages only.
  service.on((e: ApiEvent) => {
    for (const w of BrowserWindow.getAllWindows()) {
      if (w.isDestroyed() || !isTrustedUrl(w.webContents.getURL())) continue;
      try {
        w.webContents.send(IPC.event, e);
      } catch {
        // A payload that cannot be cloned must not stop the others.
      }
    }
  });

  // Every web contents (the window, and anything it might try to open): no navigation away
  // from the app, no new windows (https links go to the OS browser), no <webview>.
  app.on('web-contents-created', (_e, contents: WebContents) => {
    contents.on('will-navigate', (ev, url) => {
      if (!isTrustedUrl(url)) ev.preventDefault();
    });
    contents.on('will-redirect', (ev, url) => {
      if (!isTrustedUrl(url)) ev.preventDefault();
    });
    contents.on('will-attach-webview', (ev) => ev.preventDefault());
    contents.setWindowOpenHandler(({ url }) => {
      const safe = externalUrl(url);
      if (safe) void shell.openExternal(safe);
      return { action: 'deny' };
    });
  });

  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return { service };
  }
  app.on('second-instance', () => {
    const w = BrowserWindow.getAllWindows()[0];
    if (w) {
      if (w.isMinimized()) w.restore();
      w.focus();
    }
  });

  await app.whenReady();

  const ses = session.defaultSession;
  ses.webRequest.onHeadersReceived((details, callback) => {
    const headers: Record<string, string[]> = {};
    for (const [k, v] of Object.entries(details.responseHeaders ?? {})) {
      if (k.toLowerCase() !== 'content-security-policy') headers[k] = v;
    }
    headers['Content-Security-Policy'] = [csp];
    callback({ responseHeaders: headers });
  });
  ses.setPermissionRequestHandler((_wc, permission, callback, details) =>
    callback(permissionAllowed(permission, details.requestingUrl, isTrustedUrl)),
  );
  ses.setPermissionCheckHandler((_wc, permission, requestingOrigin, details) =>
    permissionAllowed(permission, details.requestingUrl ?? requestingOrigin, isTrustedUrl),
  );

  const createWindow = async (): Promise<void> => {
    const win = new BrowserWindow(windowOptions(o.preload));
    win.once('ready-to-show', () => win.show());
    try {
      if (o.devUrl) await win.loadURL(o.devUrl);
      else await win.loadFile(o.indexHtml);
    } catch (e) {
      dialog.showErrorBox(
        'Beton Studio',
        `The app's page did not load (${(e as Error).message}).\nIf you run from a checkout: npm run build`,
      );
      win.show();
    }
  };
  await createWindow();

  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) void createWindow();
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });

  // Quit cleanly: cancel running jobs and give them a moment to remove their temporary
  // files (a cancelled build leaves nothing behind), then close the runs database.
  let closing = false;
  app.on('before-quit', (ev) => {
    if (closing) return;
    closing = true;
    if (service.runningJobs === 0) {
      service.close();
      return;
    }
    ev.preventDefault();
    service.close();
    void service.whenIdle(o.quitGraceMs ?? 3000).then(() => app.quit());
  });

  return { service };
}
