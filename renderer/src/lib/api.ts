/**
 * The renderer's only way to the app: a typed client over the core/api contract.
 * Transport chosen once at start: Electron's preload bridge (`window.beton`) when present,
 * else HTTP to `beton serve` on the same origin (POST /api/<method>, server-sent events on
 * /api/events) with the token the printed URL carried.
 */
import type { ApiEvent, Envelope, EventName, Method, Params, Results } from '../../../core/api/contract.js';

/** What Electron's preload exposes through contextBridge (channels from IPC in the contract). */
export interface BetonBridge {
  invoke(method: string, params: unknown): Promise<Envelope<unknown>>;
  onEvent(cb: (e: ApiEvent) => void): () => void;
}

/** Optional native dialogs the Electron preload may expose; the app degrades without them. */
export interface BetonDialogs {
  openPath?(opts?: {
    kind?: 'file' | 'folder' | 'any';
    title?: string;
    filters?: Array<{ name: string; extensions: string[] }>;
  }): Promise<string | null>;
  saveText?(suggestedName: string, text: string): Promise<string | null | boolean>;
}

declare global {
  interface Window {
    beton?: BetonBridge;
    betonDialogs?: BetonDialogs;
  }
}

export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export type ConnectionState = 'connecting' | 'open' | 'closed';

export interface Transport {
  readonly kind: 'electron' | 'http';
  invoke(method: Method, params: unknown): Promise<Envelope<unknown>>;
  /** Every contract event; returns an unsubscribe. */
  onEvent(cb: (e: ApiEvent) => void): () => void;
  /** Event stream health (HTTP only reconnects; Electron is always open). */
  onConnection?(cb: (s: ConnectionState) => void): () => void;
}

export function electronTransport(bridge: BetonBridge): Transport {
  return {
    kind: 'electron',
    invoke: (method, params) => bridge.invoke(method, params),
    onEvent: (cb) => bridge.onEvent(cb),
  };
}

const EVENT_NAMES: EventName[] = ['jobs:progress', 'jobs:sample', 'jobs:finished', 'runs:changed'];

export interface HttpTransportOptions {
  token: string | null;
  /** '' for the same origin. */
  baseUrl?: string;
  fetch?: typeof fetch;
  EventSource?: typeof EventSource;
}

export function httpTransport(o: HttpTransportOptions): Transport {
  const base = o.baseUrl ?? '';
  const doFetch = o.fetch ?? ((...a: Parameters<typeof fetch>) => fetch(...a));
  const ES = o.EventSource ?? (typeof EventSource === 'undefined' ? undefined : EventSource);
  const listeners = new Set<(e: ApiEvent) => void>();
  const connListeners = new Set<(s: ConnectionState) => void>();
  let source: EventSource | null = null;
  let state: ConnectionState = 'closed';
  const setState = (s: ConnectionState): void => {
    state = s;
    for (const l of connListeners) l(s);
  };
  const open = (): void => {
    if (source || !ES) return;
    const url = `${base}/api/events${o.token ? `?token=${encodeURIComponent(o.token)}` : ''}`;
    source = new ES(url);
    setState('connecting');
    source.onopen = () => setState('open');
    // EventSource reconnects by itself; report the gap so the UI can say so.
    source.onerror = () => setState(source?.readyState === 2 ? 'closed' : 'connecting');
    for (const name of EVENT_NAMES) {
      source.addEventListener(name, (m: MessageEvent<string>) => {
        let data: unknown;
        try {
          data = JSON.parse(m.data);
        } catch {
          return;
        }
        const e = { event: name, data } as ApiEvent;
        for (const l of listeners) l(e);
      });
    }
  };
  const close = (): void => {
    source?.close();
    source = null;
    setState('closed');
  };
  return {
    kind: 'http',
    async invoke(method, params) {
      let res: Response;
      try {
        res = await doFetch(`${base}/api/${method}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ...(o.token ? { 'X-Beton-Token': o.token } : {}) },
          body: JSON.stringify(params ?? {}),
          cache: 'no-store',
        });
      } catch (e) {
        return { ok: false, error: { code: 'NETWORK', message: `cannot reach the server: ${(e as Error).message}` } };
      }
      let body: unknown;
      try {
        body = await res.json();
      } catch {
        return {
          ok: false,
          error: {
            code: res.status === 401 ? 'UNAUTHORIZED' : 'BAD_RESPONSE',
            message: `the server answered ${res.status} without a JSON envelope`,
          },
        };
      }
      if (isEnvelope(body)) return body;
      return { ok: false, error: { code: 'BAD_RESPONSE', message: `the server answered ${res.status} with an unexpected body` } };
    },
    onEvent(cb) {
      listeners.add(cb);
      open();
      return () => {
        listeners.delete(cb);
        if (listeners.size === 0) close();
      };
    },
    onConnection(cb) {
      connListeners.add(cb);
      cb(state);
      return () => connListeners.delete(cb);
    },
  };
}

function isEnvelope(x: unknown): x is Envelope<unknown> {
  if (typeof x !== 'object' || x === null) return false;
  const e = x as { ok?: unknown; error?: unknown };
  if (e.ok === true) return 'value' in x;
  return e.ok === false && typeof e.error === 'object' && e.error !== null && typeof (e.error as { code?: unknown }).code === 'string';
}

const TOKEN_KEY = 'beton.token';

/**
 * The server token: from `?token=` (kept in sessionStorage, then removed from the address bar
 * and history so it is not shared by copying the URL), else what this tab stored before.
 */
export function takeToken(
  loc: Pick<Location, 'href'>,
  storage: Pick<Storage, 'getItem' | 'setItem'> | null,
  history: Pick<History, 'replaceState'> | null,
): string | null {
  const url = new URL(loc.href);
  const fromUrl = url.searchParams.get('token');
  if (fromUrl) {
    try {
      storage?.setItem(TOKEN_KEY, fromUrl);
    } catch {
      // Storage can be disabled; the token still works for this page's life.
    }
    url.searchParams.delete('token');
    history?.replaceState(null, '', url.pathname + (url.search === '?' ? '' : url.search) + url.hash);
    return fromUrl;
  }
  try {
    return storage?.getItem(TOKEN_KEY) ?? null;
  } catch {
    return null;
  }
}

/** The transport for this page: the preload bridge in Electron, else HTTP with the token. */
export function pickTransport(win: Window = window): Transport {
  if (win.beton && typeof win.beton.invoke === 'function') return electronTransport(win.beton);
  let storage: Storage | null = null;
  try {
    storage = win.sessionStorage;
  } catch {
    storage = null;
  }
  return httpTransport({ token: takeToken(win.location, storage, win.history) });
}

let transport: Transport | null = null;

/** Sets the transport (at start; tests pass a fake). */
export function setTransport(t: Transport | null): void {
  transport = t;
}

export function getTransport(): Transport {
  transport ??= pickTransport();
  return transport;
}

/** Calls a contract method; resolves with its result or throws an ApiError with the host's code and message. */
export async function call<M extends Method>(method: M, params: Params<M>): Promise<Results[M]> {
  let env: Envelope<unknown>;
  try {
    env = await getTransport().invoke(method, params);
  } catch (e) {
    throw new ApiError('NETWORK', (e as Error).message ?? String(e));
  }
  if (!env.ok) throw new ApiError(env.error.code, env.error.message);
  return env.value as Results[M];
}

export function subscribe(cb: (e: ApiEvent) => void): () => void {
  return getTransport().onEvent(cb);
}

/** A user-facing error from anything thrown. */
export function toApiError(e: unknown): ApiError {
  if (e instanceof ApiError) return e;
  return new ApiError('FAILED', e instanceof Error ? e.message : String(e));
}
