import { useCallback, useEffect, useId, useState, type ReactNode } from 'react';
import type { FsEntry, FsListing } from '../../../core/api/contract.js';
import { call, toApiError, type ApiError } from '../lib/api.js';
import { dirname, formatBytes } from '../lib/format.js';
import { useEnvStore } from '../stores/env.js';
import { ErrorBanner, Loading } from './States.js';

export type PickKind = 'folder' | 'file' | 'any';

const ROLE_LABEL: Record<FsEntry['role'], string> = {
  beton: '.beton',
  table: 'table',
  image: 'image',
  video: 'video',
  other: 'file',
  dir: 'folder',
};

/**
 * The server-side file browser (browser mode): fs.browse, confined by the host to the
 * folders it serves. Folders open with a click; files whose role is accepted are picked.
 */
export function FileBrowser({
  pick,
  accept,
  onPick,
  startPath,
  onClose,
}: {
  pick: PickKind;
  accept?: ReadonlyArray<FsEntry['role']>;
  onPick(path: string, kind: 'dir' | 'file'): void;
  startPath?: string;
  onClose?: () => void;
}) {
  const [listing, setListing] = useState<FsListing | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const roots = useEnvStore((s) => s.info?.roots ?? []);
  const titleId = useId();

  const go = useCallback(async (path?: string) => {
    setLoading(true);
    setError(null);
    try {
      setListing(await call('fs.browse', path ? { path } : {}));
    } catch (e) {
      setError(toApiError(e));
    } finally {
      setLoading(false);
    }
  }, []);

  // Start where the input points (its folder when it names a file); fall back to the first root.
  const [initialPath] = useState(() => startPath?.trim() || undefined);
  useEffect(() => {
    void (async () => {
      if (!initialPath) return go();
      try {
        setLoading(true);
        setListing(await call('fs.browse', { path: initialPath }));
        setLoading(false);
      } catch {
        const parent = dirname(initialPath);
        try {
          setListing(await call('fs.browse', parent && parent !== initialPath ? { path: parent } : {}));
          setLoading(false);
        } catch {
          await go();
        }
      }
    })();
  }, [go, initialPath]);

  const pickable = (e: FsEntry): boolean =>
    e.kind === 'dir' ? pick !== 'file' : pick !== 'folder' && (!accept || accept.includes(e.role));

  let body: ReactNode;
  if (loading && !listing) body = <Loading label="Reading the folder…" />;
  else if (error && !listing) body = <ErrorBanner error={error} title="Cannot open this folder" onRetry={() => void go()} />;
  else if (listing) {
    body = (
      <>
        {error ? <ErrorBanner error={error} title="Cannot open that" /> : null}
        {listing.entries.length === 0 ? (
          <div className="browser-empty">This folder is empty.</div>
        ) : (
          <ul className="browser-list" aria-labelledby={titleId}>
            {listing.entries.map((e) => {
              const can = pickable(e);
              return (
                <li key={e.path} className={`browser-row role-${e.role}`}>
                  {e.kind === 'dir' ? (
                    <button
                      type="button"
                      className="browser-entry"
                      data-testid="browser-entry"
                      data-name={e.name}
                      onClick={() => void go(e.path)}
                      title={`Open ${e.name}`}
                    >
                      <span className="browser-icon" aria-hidden="true">
                        ▸
                      </span>
                      <span className="browser-name">{e.name}</span>
                      <span className="badge">folder</span>
                    </button>
                  ) : (
                    <button
                      type="button"
                      className="browser-entry"
                      data-testid="browser-entry"
                      data-name={e.name}
                      disabled={!can}
                      onClick={() => onPick(e.path, 'file')}
                      title={can ? `Choose ${e.name}` : 'Not a file this screen can use'}
                    >
                      <span className="browser-icon" aria-hidden="true">
                        ·
                      </span>
                      <span className="browser-name">{e.name}</span>
                      <span className={`badge badge-${e.role}`}>{ROLE_LABEL[e.role]}</span>
                      <span className="browser-size">{formatBytes(e.size)}</span>
                    </button>
                  )}
                  {e.kind === 'dir' && pick !== 'file' ? (
                    <button
                      type="button"
                      className="btn btn-small btn-ghost"
                      data-testid="browser-choose-dir"
                      data-name={e.name}
                      onClick={() => onPick(e.path, 'dir')}
                    >
                      Choose
                    </button>
                  ) : null}
                </li>
              );
            })}
          </ul>
        )}
      </>
    );
  }

  return (
    <div className="browser" data-testid="file-browser">
      <div className="browser-bar">
        <button
          type="button"
          className="btn btn-small"
          data-testid="browser-up"
          disabled={!listing?.parent || loading}
          onClick={() => listing?.parent && void go(listing.parent)}
          aria-label="Up one folder"
        >
          ↑ Up
        </button>
        <div className="browser-path" id={titleId} title={listing?.path} data-testid="browser-path">
          {/* The box is right-to-left so a long path keeps its end in view; the path itself is
              isolated left-to-right, else its leading "/" moves to the end ("/data/x" as "data/x/"). */}
          <span dir="ltr">{listing?.path ?? '…'}</span>
        </div>
        {roots.length > 1 ? (
          <select aria-label="Served folders" value="" onChange={(e) => e.target.value && void go(e.target.value)}>
            <option value="">Folders…</option>
            {roots.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        ) : null}
        {pick !== 'file' && listing ? (
          <button
            type="button"
            className="btn btn-small btn-primary"
            data-testid="browser-use-folder"
            onClick={() => onPick(listing.path, 'dir')}
          >
            Use this folder
          </button>
        ) : null}
        {onClose ? (
          <button type="button" className="btn btn-small btn-ghost" onClick={onClose} aria-label="Close the browser">
            ✕
          </button>
        ) : null}
      </div>
      {body}
    </div>
  );
}

/**
 * A path input with "Browse…": a native dialog when Electron's preload offers one, else
 * the server-side browser inline.
 */
export function PathPicker({
  label,
  value,
  onChange,
  onPicked,
  pick,
  accept,
  testId,
  error,
  placeholder,
  onEnter,
}: {
  label: string;
  value: string;
  onChange(v: string): void;
  onPicked?(path: string): void;
  pick: PickKind;
  accept?: ReadonlyArray<FsEntry['role']>;
  testId?: string;
  error?: string | undefined;
  placeholder?: string;
  onEnter?(): void;
}) {
  const [open, setOpen] = useState(false);
  const id = useId();
  const dialogs = typeof window !== 'undefined' ? window.betonDialogs : undefined;
  const native = typeof dialogs?.openPath === 'function';
  const browse = async (): Promise<void> => {
    if (native) {
      const p = await dialogs!.openPath!({
        kind: pick === 'any' ? 'any' : pick,
        title: label,
        ...(accept?.includes('beton') ? { filters: [{ name: 'Beton datasets', extensions: ['beton'] }] } : {}),
      });
      if (p) {
        onChange(p);
        onPicked?.(p);
      }
      return;
    }
    setOpen((o) => !o);
  };
  return (
    <div className="path-picker">
      <label htmlFor={id}>{label}</label>
      <div className="path-row">
        <input
          id={id}
          value={value}
          placeholder={placeholder}
          onChange={(e) => onChange(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && onEnter) {
              e.preventDefault();
              onEnter();
            }
          }}
          data-testid={testId}
          aria-invalid={error ? true : undefined}
          spellCheck={false}
          autoComplete="off"
        />
        <button
          type="button"
          className="btn"
          onClick={() => void browse()}
          aria-expanded={native ? undefined : open}
          data-testid={testId ? `${testId}-browse` : undefined}
        >
          Browse…
        </button>
      </div>
      {error ? (
        <div className="field-msg field-error" role="alert" data-testid="validation-msg">
          {error}
        </div>
      ) : null}
      {open && !native ? (
        <FileBrowser
          pick={pick}
          {...(accept ? { accept } : {})}
          {...(value.trim() ? { startPath: value.trim() } : {})}
          onClose={() => setOpen(false)}
          onPick={(p) => {
            onChange(p);
            setOpen(false);
            onPicked?.(p);
          }}
        />
      ) : null}
    </div>
  );
}
