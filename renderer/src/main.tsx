import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.js';
import { pickTransport, setTransport } from './lib/api.js';
import { applyTheme, useUiStore } from './stores/ui.js';
import './styles/index.css';

// Transport first: it takes the token out of the address bar before anything else runs.
setTransport(pickTransport(window));
applyTheme(useUiStore.getState().theme);
// Following the OS: re-resolve 'system' when its colour scheme changes.
if (typeof matchMedia === 'function') {
  matchMedia('(prefers-color-scheme: dark)').addEventListener?.('change', () => {
    if (useUiStore.getState().theme === 'system') applyTheme('system');
  });
}

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}
