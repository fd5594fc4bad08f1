import type { ConnectionState } from '../lib/api.js';

/**
 * Says at once that the server went away (the event stream dropped after it had been open):
 * live charts stop, a running job's state is unknown, and nothing on the page is current
 * until it reconnects. Electron's transport is always open, so it never shows there.
 */
export function ServerBanner({ conn, lostAt }: { conn: ConnectionState; lostAt: number | null }) {
  if (conn === 'open' || lostAt === null) return null;
  const at = new Date(lostAt).toLocaleTimeString();
  return (
    <div className="banner banner-error server-banner" role="alert" data-testid="server-gone" data-state={conn}>
      <div className="banner-text">
        <strong>The server stopped answering</strong> (at {at}; {conn === 'connecting' ? 'trying to reconnect' : 'disconnected'}).
        <div className="banner-message">
          Nothing here is live: a running profile or build may have stopped with the server, so its state is unknown. Once the server is
          back, Runs shows what was recorded; a sweep cut short appears as interrupted with the points it finished.
        </div>
      </div>
    </div>
  );
}
