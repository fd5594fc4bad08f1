// The sandboxed preload (CommonJS, compiled to dist/electron/preload.cjs). A sandboxed
// preload may `require` nothing but `electron`, so this file is self-contained: types come
// from core/api (erased at compile time) and the channel names are repeated below.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the CommonJS form of a value import under verbatimModuleSyntax
import electron = require('electron');
import type { IpcRendererEvent } from 'electron';
import type { ApiEvent, Envelope, Method, Params, Results } from '../core/api/contract.js';

// Copies of IPC in core/api/contract.ts and DIALOG in electron/channels.ts;
// test/electron-window.test.ts checks that they agree.
const { contextBridge, ipcRenderer } = electron;
const API_CHANNEL = 'beton:api';
const EVENT_CHANNEL = 'beton:event';
const DIALOG_OPEN = 'beton:dialog:open';
const DIALOG_SAVE = 'beton:dialog:save';

/** `window.beton`: the contract, and nothing else. */
const beton = {
  invoke<M extends Method>(method: M, params?: Params<M>): Promise<Envelope<Results[M]>> {
    return ipcRenderer.invoke(API_CHANNEL, { method, params: params ?? {} }) as Promise<Envelope<Results[M]>>;
  },
  /** Calls `listener` with every service event; returns the function that stops it. */
  onEvent(listener: (e: ApiEvent) => void): () => void {
    if (typeof listener !== 'function') throw new TypeError('onEvent expects a function');
    // The page gets the event's data only, never Electron's event object (it holds ipcRenderer).
    const wrapped = (_e: IpcRendererEvent, payload: ApiEvent): void => listener(payload);
    ipcRenderer.on(EVENT_CHANNEL, wrapped);
    return () => {
      ipcRenderer.removeListener(EVENT_CHANNEL, wrapped);
    };
  },
};

/** Main answers dialog calls with envelopes; the page gets plain data, or a rejection with the message. */
async function unwrap<T>(reply: Promise<Envelope<T>>): Promise<T> {
  const r = await reply;
  if (r.ok) return r.value;
  throw new Error(r.error.message);
}

interface OpenOptions {
  /** 'any' (default): a file, or on macOS also a folder; 'beton': a .beton file. */
  kind?: 'folder' | 'file' | 'beton' | 'any';
  title?: string;
  filters?: Array<{ name: string; extensions: string[] }>;
}

/** `window.betonDialogs`: native file dialogs (desktop only; the browser app browses with fs.browse). */
const betonDialogs = {
  /** The chosen path, or null when cancelled. Takes the options, or just the kind. */
  openPath(opts?: OpenOptions | OpenOptions['kind']): Promise<string | null> {
    const args = typeof opts === 'string' ? { kind: opts } : (opts ?? {});
    return unwrap(ipcRenderer.invoke(DIALOG_OPEN, args) as Promise<Envelope<string | null>>);
  },
  /** Asks where to save `text` (suggesting the file name `name`) and writes it: the path written, or null when cancelled. */
  saveText(name: string, text: string): Promise<string | null> {
    return unwrap(ipcRenderer.invoke(DIALOG_SAVE, { name, text }) as Promise<Envelope<string | null>>);
  },
};

export type BetonBridge = typeof beton;
export type BetonDialogs = typeof betonDialogs;

contextBridge.exposeInMainWorld('beton', beton);
contextBridge.exposeInMainWorld('betonDialogs', betonDialogs);
