import type { ReactNode } from 'react';
import type { ApiError } from '../lib/api.js';
import { InlineMarkdown } from './InlineMarkdown.js';

/** A designed empty state: what is missing and what to do about it. */
export function EmptyState({
  title,
  children,
  action,
  testId,
}: {
  title: string;
  children?: ReactNode;
  action?: ReactNode;
  testId?: string;
}) {
  return (
    <div className="empty" data-testid={testId ?? 'empty-state'}>
      {/* A drawn mark (an empty tray), not a blank square. */}
      <svg className="empty-mark" data-testid="empty-icon" viewBox="0 0 24 24" width="40" height="40" aria-hidden="true">
        <path
          d="M3 13l2.5-7.5A2 2 0 0 1 7.4 4h9.2a2 2 0 0 1 1.9 1.5L21 13v5a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2v-5zm0 0h5l1.5 2.5h5L16 13h5"
          fill="none"
          stroke="currentColor"
          strokeWidth="1.6"
          strokeLinejoin="round"
          strokeLinecap="round"
        />
      </svg>
      <h3>{title}</h3>
      {children ? <div className="empty-body">{children}</div> : null}
      {action ? <div className="empty-action">{action}</div> : null}
    </div>
  );
}

const HINTS: Record<string, string> = {
  FORBIDDEN: 'This server may open only the folders it was started with.',
  NOT_FOUND: 'Check the path; it may have moved or been deleted.',
  UNAUTHORIZED: 'Open the URL that `beton serve` printed: it carries the access token.',
  NETWORK: 'The server may have stopped; start it again and reload.',
  EXEC_DISABLED: 'Restart `beton serve` with --allow-exec to run training commands (anyone with its link could then run commands as you).',
  HOST_NOT_ALLOWED: 'Open the URL that `beton serve` printed, with the same host name and port.',
  ORIGIN_NOT_ALLOWED: 'Only the page `beton serve` itself serves may call it.',
};

/** An error with its code, the host's message, a hint when we know one, and an optional retry. */
export function ErrorBanner({
  error,
  onRetry,
  title,
  testId,
}: {
  error: ApiError | { code: string; message: string };
  onRetry?: () => void;
  title?: string;
  testId?: string;
}) {
  const hint = HINTS[error.code];
  return (
    <div className="banner banner-error" role="alert" data-testid={testId ?? 'error'} data-code={error.code}>
      <div className="banner-text">
        <strong>{title ?? 'Something went wrong'}</strong> <code className="code-chip">{error.code}</code>
        <div className="banner-message">
          <InlineMarkdown text={error.message} />
        </div>
        {hint ? (
          <div className="banner-hint">
            <InlineMarkdown text={hint} />
          </div>
        ) : null}
      </div>
      {onRetry ? (
        <button type="button" className="btn btn-small" onClick={onRetry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

export function Loading({ label = 'Loading…', testId }: { label?: string; testId?: string }) {
  return (
    <div className="loading" role="status" aria-live="polite" data-testid={testId ?? 'loading'}>
      <span className="spinner" aria-hidden="true" />
      <span>{label}</span>
    </div>
  );
}

/** Placeholder blocks while something loads (keeps the layout from jumping). */
export function Skeleton({ rows = 3, height = 14 }: { rows?: number; height?: number }) {
  return (
    <div className="skeleton-group" aria-hidden="true">
      {Array.from({ length: rows }, (_, i) => (
        <div key={i} className="skeleton" style={{ height, width: `${90 - i * 12}%` }} />
      ))}
    </div>
  );
}
