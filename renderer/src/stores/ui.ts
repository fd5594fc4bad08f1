import { create } from 'zustand';

export type Screen = 'sources' | 'build' | 'dataset' | 'profile' | 'runs' | 'export';
export type Theme = 'system' | 'light' | 'dark';

export const SCREENS: Array<{ id: Screen; label: string; hint: string }> = [
  { id: 'sources', label: 'Sources', hint: 'Pick data, edit the schema, build' },
  { id: 'build', label: 'Build', hint: 'Progress and report' },
  { id: 'dataset', label: 'Dataset', hint: 'Open and browse a .beton' },
  { id: 'profile', label: 'Profile', hint: 'Find the loading bottleneck' },
  { id: 'runs', label: 'Runs', hint: 'History and comparison' },
  { id: 'export', label: 'Export', hint: 'Python FFCV code and JSON' },
];

const THEME_KEY = 'beton.theme';

function readTheme(): Theme {
  try {
    const t = globalThis.localStorage?.getItem(THEME_KEY);
    return t === 'light' || t === 'dark' ? t : 'system';
  } catch {
    return 'system';
  }
}

/** The light or dark scheme the OS asks for. */
export function systemScheme(): 'light' | 'dark' {
  return typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

/**
 * Sets data-theme on <html> to 'light' or 'dark' (the CSS variables follow), resolving
 * 'system' from prefers-color-scheme, so the stylesheet holds each palette once. main.tsx
 * re-applies 'system' when the OS scheme changes.
 */
export function applyTheme(theme: Theme): void {
  if (typeof document === 'undefined') return;
  document.documentElement.dataset.theme = theme === 'system' ? systemScheme() : theme;
}

/**
 * What the URL's hash names: a screen, and on Runs a run (`#/runs/4`), on Dataset a file
 * (`#/dataset?file=%2Fdata%2Ftrain.beton`), so a link or a reload opens the same thing.
 */
export interface Route {
  screen: Screen;
  runId?: number;
  file?: string;
}

export function routeFromHash(hash: string): Route | null {
  const m = /^#\/?([a-z]+)(?:\/(\d+))?(?:\?(.*))?$/.exec(hash);
  if (!m || !SCREENS.some((s) => s.id === m[1])) return null;
  const route: Route = { screen: m[1] as Screen };
  if (route.screen === 'runs' && m[2]) route.runId = Number(m[2]);
  const file = route.screen === 'dataset' && m[3] ? new URLSearchParams(m[3]).get('file') : null;
  if (file) route.file = file;
  return route;
}

/** The hash for a route (what routeFromHash reads back). */
export function hashOf(route: Route): string {
  if (route.screen === 'runs' && route.runId !== undefined) return `#/runs/${route.runId}`;
  if (route.screen === 'dataset' && route.file) return `#/dataset?file=${encodeURIComponent(route.file)}`;
  return `#/${route.screen}`;
}

export function screenFromHash(hash: string): Screen | null {
  return routeFromHash(hash)?.screen ?? null;
}

interface UiState {
  screen: Screen;
  theme: Theme;
  /** Server token missing or wrong: the whole app shows how to get in. */
  unauthorized: boolean;
  /** The server stopped answering (the event stream dropped after it was open): starting jobs is pointless. */
  offline: boolean;
  setScreen(s: Screen): void;
  setTheme(t: Theme): void;
  setUnauthorized(v: boolean): void;
  setOffline(v: boolean): void;
}

export const useUiStore = create<UiState>()((set) => ({
  // From the URL at start, so the first render is already the linked screen.
  screen: screenFromHash(globalThis.location?.hash ?? '') ?? 'sources',
  theme: readTheme(),
  unauthorized: false,
  offline: false,
  setScreen: (screen) => set({ screen }),
  setTheme: (theme) => {
    try {
      if (theme === 'system') globalThis.localStorage?.removeItem(THEME_KEY);
      else globalThis.localStorage?.setItem(THEME_KEY, theme);
    } catch {
      // Not persisted; still applied.
    }
    applyTheme(theme);
    set({ theme });
  },
  setUnauthorized: (unauthorized) => set({ unauthorized }),
  setOffline: (offline) => set({ offline }),
}));
