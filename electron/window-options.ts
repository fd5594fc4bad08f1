import type { BrowserWindowConstructorOptions } from 'electron';

/**
 * The BrowserWindow options of the app's one window. Pure (no Electron at run time), so
 * a test can hold every security setting in place: the page gets no Node.js, runs in
 * Chromium's sandbox, in its own JavaScript world apart from the preload, and only sees
 * what the preload hands it through contextBridge.
 */
export function windowOptions(preloadPath: string): BrowserWindowConstructorOptions {
  return {
    width: 1360,
    height: 880,
    minWidth: 900,
    minHeight: 600,
    title: 'Beton Studio',
    show: false, // shown on 'ready-to-show', so no blank frame flashes
    backgroundColor: '#101418',
    autoHideMenuBar: true,
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      sandbox: true,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
      enableWebSQL: false,
      navigateOnDragDrop: false,
      spellcheck: false,
      safeDialogs: true,
    },
  };
}

/**
 * The CSP for `npm run dev` only: Vite's dev server injects an inline React-refresh
 * preamble and talks to its page over a WebSocket, which the strict policy forbids.
 * Never used for the built app (file://), which gets `CSP` unchanged.
 */
export function devContentSecurityPolicy(csp: string, devUrl: string): string {
  const u = new URL(devUrl);
  const ws = `${u.protocol === 'https:' ? 'wss:' : 'ws:'}//${u.host}`;
  return csp
    .split(';')
    .map((d) => d.trim())
    .filter(Boolean)
    .map((d) => {
      if (d.startsWith('script-src ')) return `${d} 'unsafe-inline'`;
      if (d.startsWith('connect-src ')) return `${d} ${ws}`;
      return d;
    })
    .join('; ');
}
