import { Component, useEffect, useState, type ErrorInfo, type ReactNode } from 'react';
import { getTransport, subscribe, type ConnectionState } from './lib/api.js';
import { decoderLabel, formatBytes } from './lib/format.js';
import { ServerBanner } from './components/ServerBanner.js';
import { BuildScreen } from './screens/BuildScreen.js';
import { DatasetScreen } from './screens/DatasetScreen.js';
import { ExportScreen } from './screens/ExportScreen.js';
import { ProfileScreen } from './screens/ProfileScreen.js';
import { RunsScreen } from './screens/RunsScreen.js';
import { SourcesScreen } from './screens/SourcesScreen.js';
import { useBuildsStore } from './stores/builds.js';
import { useDatasetsStore } from './stores/datasets.js';
import { useEnvStore } from './stores/env.js';
import { useExportStore } from './stores/export.js';
import { useProfilesStore } from './stores/profiles.js';
import { useRunsStore } from './stores/runs.js';
import { hashOf, routeFromHash, SCREENS, useUiStore, type Route, type Screen, type Theme } from './stores/ui.js';
import { wireEvents } from './stores/wire.js';

const VIEWS: Record<Screen, () => ReactNode> = {
  sources: SourcesScreen,
  build: BuildScreen,
  dataset: DatasetScreen,
  profile: ProfileScreen,
  runs: RunsScreen,
  export: ExportScreen,
};

export function App() {
  const screen = useUiStore((u) => u.screen);
  const setScreen = useUiStore((u) => u.setScreen);
  const unauthorized = useUiStore((u) => u.unauthorized);
  const loadEnv = useEnvStore((e) => e.load);
  const [conn, setConn] = useState<ConnectionState>('connecting');
  // When the event stream dropped after having been open: the server went away (banner).
  const [lostAt, setLostAt] = useState<number | null>(null);

  useEffect(() => {
    void loadEnv();
    // A reload keeps the host's build history and reports (the page's own state is gone).
    void useBuildsStore.getState().loadHistory();
    const off = wireEvents(subscribe);
    const t = getTransport();
    let wasOpen = false;
    const onConn = (s: ConnectionState): void => {
      setConn(s);
      if (s === 'open') {
        wasOpen = true;
        setLostAt(null);
        useUiStore.getState().setOffline(false);
      } else if (wasOpen) {
        wasOpen = false;
        setLostAt(Date.now());
        useUiStore.getState().setOffline(true);
        useProfilesStore.getState().onConnectionLost();
      }
    };
    const offConn = t.onConnection ? t.onConnection(onConn) : (onConn('open'), () => undefined);
    return () => {
      off();
      offConn();
    };
  }, [loadEnv]);

  // While the server is away, ask it every few seconds who we are: a server started again with a
  // new token answers 401, and the page then asks for the token (else it would read Offline for ever).
  useEffect(() => {
    if (lostAt === null) return;
    const t = setInterval(() => void useEnvStore.getState().load(), 2000);
    return () => clearInterval(t);
  }, [lostAt]);

  // The screen lives in the URL hash (#/build), with the open run (#/runs/4) or dataset
  // (#/dataset?file=…): reload, back/forward and a pasted link open the same thing.
  useEffect(() => {
    const follow = (): void => {
      const r = routeFromHash(location.hash);
      if (!r) return;
      setScreen(r.screen);
      if (r.runId !== undefined && useRunsStore.getState().open !== r.runId) useRunsStore.getState().openRun(r.runId);
      const d = useDatasetsStore.getState();
      if (r.file !== undefined && d.openPath !== r.file && !(d.inspecting && d.path === r.file)) void d.open(r.file);
      // A link to the screen alone (the sidebar's #/runs) keeps what is open there: the address
      // names it again, so a reload or a copied link opens the same run or file.
      const open = useRunsStore.getState().open;
      const keep: Route = { screen: r.screen };
      if (r.screen === 'runs' && r.runId === undefined && open !== null) keep.runId = open;
      if (r.screen === 'dataset' && r.file === undefined && d.openPath) keep.file = d.openPath;
      if (keep.runId !== undefined || keep.file !== undefined) history.replaceState(null, '', hashOf(keep));
    };
    follow();
    window.addEventListener('hashchange', follow);
    return () => window.removeEventListener('hashchange', follow);
  }, [setScreen]);
  const openRun = useRunsStore((r) => r.open);
  const openFile = useDatasetsStore((d) => d.openPath);
  useEffect(() => {
    const route: Route = { screen };
    if (screen === 'runs' && openRun !== null) route.runId = openRun;
    if (screen === 'dataset' && openFile) route.file = openFile;
    const hash = hashOf(route);
    if (location.hash !== hash) history.replaceState(null, '', hash);
    document.title = `${SCREENS.find((s) => s.id === screen)?.label ?? ''} · Beton Studio`;
  }, [screen, openRun, openFile]);

  // Alt+1…6 switch screens.
  useEffect(() => {
    const on = (e: KeyboardEvent): void => {
      if (!e.altKey || e.ctrlKey || e.metaKey) return;
      const i = Number(e.key) - 1;
      const s = SCREENS[i];
      if (s) {
        e.preventDefault();
        setScreen(s.id);
      }
    };
    window.addEventListener('keydown', on);
    return () => window.removeEventListener('keydown', on);
  }, [setScreen]);

  // A finished build becomes the default dataset of the other screens (where none is chosen).
  useEffect(
    () =>
      useBuildsStore.subscribe((s, prev) => {
        for (const id of s.order) {
          const j = s.jobs[id];
          if (!j?.report || prev.jobs[id]?.report) continue;
          const path = j.report.path;
          if (!useDatasetsStore.getState().path) useDatasetsStore.getState().setPath(path);
          if (!useProfilesStore.getState().form.file) useProfilesStore.getState().setForm({ file: path });
          if (!useExportStore.getState().form.file) useExportStore.getState().setForm({ file: path });
        }
      }),
    [],
  );

  if (unauthorized) return <AuthRequired />;
  const View = VIEWS[screen];
  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <Sidebar screen={screen} conn={conn} />
      <main id="main" className="main" tabIndex={-1}>
        <ServerBanner conn={conn} lostAt={lostAt} />
        <ErrorBoundary key={screen}>
          <View />
        </ErrorBoundary>
      </main>
    </div>
  );
}

function Sidebar({ screen, conn }: { screen: Screen; conn: ConnectionState }) {
  const theme = useUiStore((u) => u.theme);
  const setTheme = useUiStore((u) => u.setTheme);
  const info = useEnvStore((e) => e.info);
  const envError = useEnvStore((e) => e.error);
  const running = useBuildsStore((s) => Object.values(s.jobs).some((j) => j.status === 'running'));
  const profiling = useProfilesStore((s) => s.job?.status === 'running');
  return (
    <aside className="sidebar">
      <div className="brand">
        <span className="brand-mark" aria-hidden="true">
          B
        </span>
        <span>Beton Studio</span>
      </div>
      <nav aria-label="Screens">
        <ul className="nav">
          {SCREENS.map((s, i) => (
            <li key={s.id}>
              {/* A link (not a button): a new tab, the history and a copied address all open the screen. */}
              <a
                href={`#/${s.id}`}
                className={`nav-item ${s.id === screen ? 'is-active' : ''}`}
                aria-current={s.id === screen ? 'page' : undefined}
                data-testid={`nav-${s.id}`}
                title={`${s.hint} (Alt+${i + 1})`}
              >
                <span>{s.label}</span>
                {(s.id === 'build' && running) || (s.id === 'profile' && profiling) ? (
                  <span className="pulse" aria-label="running" />
                ) : null}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <div className="sidebar-foot">
        <label className="theme-pick">
          <span>Theme</span>
          <select value={theme} onChange={(e) => setTheme(e.target.value as Theme)} data-testid="theme-select">
            <option value="system">System</option>
            <option value="light">Light</option>
            <option value="dark">Dark</option>
          </select>
        </label>
        <div className={`conn conn-${conn}`} data-testid="connection" data-state={conn}>
          <span className="dot" aria-hidden="true" /> {conn === 'open' ? 'Live' : conn === 'connecting' ? 'Connecting…' : 'Offline'}
        </div>
        {info ? (
          <dl className="env" data-testid="env-info">
            <dt>Host</dt>
            <dd>
              {info.host === 'server' ? 'beton serve' : 'desktop'} · v{info.version}
            </dd>
            <dt>Machine</dt>
            <dd>
              {info.cores} cores · {formatBytes(info.ramBytes)}
            </dd>
            <dt>GPU</dt>
            <dd>{info.gpus.length ? info.gpus.map((g) => g.name).join(', ') : 'none'}</dd>
            <dt>JPEG</dt>
            <dd data-testid="env-decoder">{info.decoderName ?? decoderLabel(info.decodePath)}</dd>
          </dl>
        ) : envError ? (
          <div className="env-error" role="alert">
            {envError.message}
          </div>
        ) : null}
      </div>
    </aside>
  );
}

/** Where the token is kept for this tab (lib/api.ts's takeToken reads it back). */
const TOKEN_KEY = 'beton.token';

function AuthRequired() {
  const [value, setValue] = useState('');
  // A pasted address or a bare token: either way the token is what follows `token=`.
  const token = (/[?&]token=([^&#\s]+)/.exec(value)?.[1] ?? value).trim();
  const submit = (): void => {
    if (!token) return;
    try {
      sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(token));
    } catch {
      // Storage disabled: the address with its token still works.
      location.href = `${location.pathname}?token=${token}${location.hash}`;
      return;
    }
    location.reload();
  };
  return (
    <main className="auth" data-testid="auth-required">
      <div className="card auth-card">
        <h1>Access token needed</h1>
        <p>
          This server only answers requests that carry its token (a server started again has a new one). Paste the full URL that{' '}
          <code>beton serve</code> printed (it ends in <code>?token=…</code>), or the token alone.
        </p>
        <form
          className="auth-form"
          onSubmit={(e) => {
            e.preventDefault();
            submit();
          }}
        >
          <label htmlFor="auth-token">Address or token</label>
          <input
            id="auth-token"
            className="input"
            data-testid="auth-token"
            value={value}
            onChange={(e) => setValue(e.target.value)}
            autoFocus
            spellCheck={false}
            autoComplete="off"
          />
          <button type="submit" className="btn btn-primary" data-testid="auth-submit" disabled={!token}>
            Connect
          </button>
        </form>
        <p className="muted">The token is kept for this tab only and removed from the address bar.</p>
      </div>
    </main>
  );
}

class ErrorBoundary extends Component<{ children: ReactNode }, { error: Error | null }> {
  override state = { error: null as Error | null };
  static getDerivedStateFromError(error: Error): { error: Error } {
    return { error };
  }
  override componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error('screen crashed', error, info.componentStack);
  }
  override render(): ReactNode {
    if (this.state.error) {
      return (
        <div className="banner banner-error" role="alert" data-testid="screen-crash">
          <div className="banner-text">
            <strong>This screen hit a bug</strong>
            <div className="banner-message">{this.state.error.message}</div>
          </div>
          <button type="button" className="btn btn-small" onClick={() => this.setState({ error: null })}>
            Reload the screen
          </button>
        </div>
      );
    }
    return this.props.children;
  }
}
