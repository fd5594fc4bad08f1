import { fileURLToPath } from 'node:url';
import type { Envelope } from 'beton-studio';
import { MAX_SAVE_BYTES, OPEN_KINDS, type OpenKind } from './channels.js';

/**
 * The main process's checks, apart from Electron so tests can run them without its
 * binary: who may call (the sender's frame), what a call must look like, where the window
 * may go, which permissions a page gets, and the native dialogs' arguments. app.ts wires
 * these to ipcMain, the session and the window.
 */

/** The part of BetonService the IPC handler needs. */
export interface ServiceLike {
  call(method: unknown, params: unknown): Promise<Envelope<unknown>>;
}

/** The part of Electron's IpcMainInvokeEvent the checks read. */
export interface SenderEvent {
  senderFrame: { url: string; parent: unknown } | null;
}

const fail = (code: string, message: string): Envelope<never> => ({ ok: false, error: { code, message } });

/**
 * Which page URLs are ours: the built renderer's index.html (file://, any hash or query:
 * client-side routes), or, for `npm run dev`, any page of the Vite dev server's origin.
 */
export function trustedUrlPredicate(o: { indexUrl: string | null; devUrl: string | null }): (url: string) => boolean {
  const index = o.indexUrl ? filePath(new URL(o.indexUrl)) : null;
  const devOrigin = o.devUrl ? new URL(o.devUrl).origin : null;
  return (raw: string): boolean => {
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      return false;
    }
    if (u.protocol === 'file:') return index !== null && filePath(u) === index;
    if (u.protocol === 'http:' || u.protocol === 'https:') return devOrigin !== null && u.origin === devOrigin;
    return false;
  };
}

/** The file a file: URL names, whatever its hash, query or percent-encoding (Chromium and Node encode a few characters differently). */
function filePath(u: URL): string | null {
  try {
    return fileURLToPath(`file://${u.host}${u.pathname}`);
  } catch {
    return null;
  }
}

/** Is `frame` our page's top frame? (An iframe, even of our own origin, may not call.) */
export function isTrustedSender(event: SenderEvent, isTrustedUrl: (url: string) => boolean): boolean {
  const frame = event.senderFrame;
  return (
    frame !== null &&
    frame !== undefined &&
    (frame.parent === null || frame.parent === undefined) &&
    typeof frame.url === 'string' &&
    isTrustedUrl(frame.url)
  );
}

/** `{ method: string, params?: unknown }`, nothing else. */
export function isRequestShape(req: unknown): req is { method: string; params?: unknown } {
  if (typeof req !== 'object' || req === null || Array.isArray(req)) return false;
  const proto = Object.getPrototypeOf(req) as unknown;
  if (proto !== Object.prototype && proto !== null) return false;
  const r = req as Record<string, unknown>;
  if (Object.keys(r).some((k) => k !== 'method' && k !== 'params')) return false;
  return typeof r.method === 'string' && r.method.length > 0 && r.method.length <= 64;
}

/**
 * The `ipcMain.handle(IPC.invoke, …)` handler: sender first, then the request's shape, then
 * the service, which validates params against the contract (zod) and answers with an
 * envelope. Never throws: a rejected invoke would reach the page as an opaque Error.
 */
export function createIpcHandler(
  service: ServiceLike,
  isTrustedUrl: (url: string) => boolean,
): (event: SenderEvent, req: unknown) => Promise<Envelope<unknown>> {
  return async (event, req) => {
    if (!isTrustedSender(event, isTrustedUrl)) return fail('FORBIDDEN', 'the call came from a page that is not the app');
    if (!isRequestShape(req)) return fail('BAD_REQUEST', 'expected { method: string, params: object }');
    try {
      return await service.call(req.method, req.params);
    } catch (e) {
      return fail('FAILED', (e as Error)?.message ?? String(e));
    }
  };
}

/** An external link the OS browser may open: https only, with a host and no credentials. */
export function externalUrl(raw: string): string | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return null;
  }
  if (u.protocol !== 'https:' || !u.hostname || u.username || u.password) return null;
  return u.href;
}

/**
 * Permission requests and checks: all denied, except writing to the clipboard from our own
 * page (the Export screen's Copy button uses navigator.clipboard.writeText).
 */
export function permissionAllowed(permission: string, requestingUrl: string, isTrustedUrl: (url: string) => boolean): boolean {
  return permission === 'clipboard-sanitized-write' && isTrustedUrl(requestingUrl);
}

// ---------- native dialogs ----------

export interface FileFilter {
  name: string;
  extensions: string[];
}

export interface OpenDialogArgs {
  kind: OpenKind;
  title?: string;
  filters?: FileFilter[];
}
export interface SaveDialogArgs {
  name: string;
  text: string;
}

type Parsed<T> = { ok: true; value: T } | { ok: false; error: { code: string; message: string } };
const badRequest = (message: string) => ({ ok: false as const, error: { code: 'BAD_REQUEST', message } });
const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `{ kind?, title?, filters? }` (kind defaults to 'any'); filters are display hints, checked all the same. */
export function parseOpenArgs(req: unknown): Parsed<OpenDialogArgs> {
  if (req === undefined || req === null) req = {};
  if (!isPlainObject(req) || Object.keys(req).some((k) => k !== 'kind' && k !== 'title' && k !== 'filters'))
    return badRequest('expected { kind, title?, filters? }');
  const kind = req.kind ?? 'any';
  if (!OPEN_KINDS.includes(kind as OpenKind)) return badRequest(`kind: expected one of ${OPEN_KINDS.join(', ')}`);
  const out: OpenDialogArgs = { kind: kind as OpenKind };
  if (req.title !== undefined) {
    if (typeof req.title !== 'string' || req.title.length > 200) return badRequest('title: expected a string of at most 200 characters');
    out.title = req.title;
  }
  if (req.filters !== undefined) {
    const f = req.filters;
    const ok =
      Array.isArray(f) &&
      f.length <= 10 &&
      f.every(
        (x: unknown) =>
          isPlainObject(x) &&
          Object.keys(x).every((k) => k === 'name' || k === 'extensions') &&
          typeof x.name === 'string' &&
          x.name.length <= 100 &&
          Array.isArray(x.extensions) &&
          x.extensions.length >= 1 &&
          x.extensions.length <= 20 &&
          x.extensions.every((e: unknown) => typeof e === 'string' && /^(\*|[A-Za-z0-9]{1,16})$/.test(e)),
      );
    if (!ok) return badRequest('filters: expected at most 10 of { name, extensions: ["beton", …] }');
    out.filters = (f as FileFilter[]).map((x) => ({ name: x.name, extensions: [...x.extensions] }));
  }
  return { ok: true, value: out };
}

export function parseSaveArgs(req: unknown): Parsed<SaveDialogArgs> {
  if (!isPlainObject(req) || Object.keys(req).some((k) => k !== 'name' && k !== 'text')) return badRequest('expected { name, text }');
  const { name, text } = req;
  // A suggested file name, not a path: the user picks the folder in the dialog.
  if (typeof name !== 'string' || name.length < 1 || name.length > 255 || /[/\\\0]/.test(name) || name === '.' || name === '..') {
    return badRequest('name: expected a file name (1–255 characters, no path separators)');
  }
  if (typeof text !== 'string') return badRequest('text: expected a string');
  // Cheap bound before counting bytes: UTF-8 needs at least one byte per UTF-16 unit.
  if (text.length > MAX_SAVE_BYTES || Buffer.byteLength(text, 'utf8') > MAX_SAVE_BYTES)
    return badRequest(`text: over ${MAX_SAVE_BYTES / (1024 * 1024)} MB`);
  return { ok: true, value: { name, text } };
}

const DATA_FILES: FileFilter = { name: 'Tables and image lists', extensions: ['csv', 'tsv', 'parquet', 'jsonl', 'npy', 'npz'] };
const BETON_FILES: FileFilter = { name: 'FFCV datasets', extensions: ['beton'] };
const ALL_FILES: FileFilter = { name: 'All files', extensions: ['*'] };

export interface OpenDialogOptions {
  title: string;
  properties: Array<'openFile' | 'openDirectory'>;
  filters?: FileFilter[];
}

/**
 * What Electron's showOpenDialog gets. 'any' is a file-or-folder picker on macOS; Windows
 * and Linux cannot show one (they would show a folder picker only), so there it picks a
 * file and folders come from kind 'folder'.
 */
export function openDialogOptions(args: OpenDialogArgs, platform: string = process.platform): OpenDialogOptions {
  const withAll = (f: FileFilter[]): FileFilter[] => (f.some((x) => x.extensions.includes('*')) ? f : [...f, ALL_FILES]);
  switch (args.kind) {
    case 'folder':
      return { title: args.title ?? 'Choose a folder', properties: ['openDirectory'] };
    case 'beton':
      return { title: args.title ?? 'Open a .beton dataset', properties: ['openFile'], filters: withAll(args.filters ?? [BETON_FILES]) };
    case 'file':
      return {
        title: args.title ?? 'Choose a file',
        properties: ['openFile'],
        filters: withAll(args.filters ?? [DATA_FILES, BETON_FILES]),
      };
    case 'any':
      return {
        title: args.title ?? 'Choose a folder or a file',
        properties: platform === 'darwin' ? ['openFile', 'openDirectory'] : ['openFile'],
        filters: withAll(args.filters ?? [DATA_FILES, BETON_FILES]),
      };
  }
}

/** Filters for the save dialog, from the suggested name's extension. */
export function saveDialogFilters(name: string): FileFilter[] {
  const ext = /\.([A-Za-z0-9]{1,8})$/.exec(name)?.[1]?.toLowerCase();
  const known: Record<string, string> = { py: 'Python', json: 'JSON', txt: 'Text', csv: 'CSV' };
  return ext
    ? [
        { name: known[ext] ?? ext.toUpperCase(), extensions: [ext] },
        { name: 'All files', extensions: ['*'] },
      ]
    : [{ name: 'All files', extensions: ['*'] }];
}

/** The native pieces the dialog handlers use (Electron's dialog and fs in app.ts; fakes in tests). */
export interface DialogDeps {
  isTrustedUrl: (url: string) => boolean;
  showOpen: (options: OpenDialogOptions) => Promise<{ canceled: boolean; filePaths: string[] }>;
  showSave: (options: { title: string; defaultPath: string; filters: FileFilter[] }) => Promise<{ canceled: boolean; filePath?: string }>;
  writeText: (path: string, text: string) => Promise<void>;
  /** Where the save dialog starts (the user's Downloads or Documents folder). */
  defaultDir: () => string;
  joinPath: (dir: string, name: string) => string;
}

/**
 * `beton:dialog:open` → the chosen path or null (cancelled); `beton:dialog:save` → writes
 * the text where the user chose and returns that path, or null. Plain data in envelopes,
 * after the same sender check as the contract's channel.
 */
export function createDialogHandlers(d: DialogDeps): {
  open: (event: SenderEvent, req: unknown) => Promise<Envelope<string | null>>;
  save: (event: SenderEvent, req: unknown) => Promise<Envelope<string | null>>;
} {
  return {
    open: async (event, req) => {
      if (!isTrustedSender(event, d.isTrustedUrl)) return fail('FORBIDDEN', 'the call came from a page that is not the app');
      const args = parseOpenArgs(req);
      if (!args.ok) return args;
      try {
        const r = await d.showOpen(openDialogOptions(args.value));
        return { ok: true, value: r.canceled ? null : (r.filePaths[0] ?? null) };
      } catch (e) {
        return fail('FAILED', (e as Error).message);
      }
    },
    save: async (event, req) => {
      if (!isTrustedSender(event, d.isTrustedUrl)) return fail('FORBIDDEN', 'the call came from a page that is not the app');
      const args = parseSaveArgs(req);
      if (!args.ok) return args;
      try {
        const r = await d.showSave({
          title: `Save ${args.value.name}`,
          defaultPath: d.joinPath(d.defaultDir(), args.value.name),
          filters: saveDialogFilters(args.value.name),
        });
        if (r.canceled || !r.filePath) return { ok: true, value: null };
        await d.writeText(r.filePath, args.value.text);
        return { ok: true, value: r.filePath };
      } catch (e) {
        return fail('FAILED', (e as Error).message);
      }
    },
  };
}
