/**
 * The IPC channels besides the contract's two (`IPC.invoke`, `IPC.event` in core/api):
 * native dialogs, which only the desktop host has. The sandboxed preload cannot import
 * this file (it may `require` nothing but `electron`), so preload.cts repeats these
 * strings; test/electron/electron-window.test.ts checks that the two agree.
 */
export const DIALOG = { open: 'beton:dialog:open', save: 'beton:dialog:save' } as const;

/** What `betonDialogs.openPath({ kind })` can pick ('any': a file or a folder). */
export const OPEN_KINDS = ['folder', 'file', 'beton', 'any'] as const;
export type OpenKind = (typeof OPEN_KINDS)[number];

/** The largest text `betonDialogs.saveText` writes (UTF-8 bytes). */
export const MAX_SAVE_BYTES = 10 * 1024 * 1024;
