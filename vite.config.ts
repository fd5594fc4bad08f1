// The renderer's build (`npm run build:renderer` → renderer/dist) and dev server (`npm run dev:renderer`).
// Relative asset paths: Electron loads the build from file://, `beton serve` from its own origin.
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

/**
 * The dev server injects an inline script (React Fast Refresh) that the page's strict CSP
 * forbids; drop the meta tag while serving. Builds keep it (no inline scripts there).
 */
const devCsp = (): Plugin => ({
  name: 'beton-dev-csp',
  apply: 'serve',
  transformIndexHtml: (html) => html.replace(/<meta\s+http-equiv="Content-Security-Policy"[^>]*>/s, ''),
});

// Where `npm run dev:renderer` proxies /api (a running `beton serve`).
const target = process.env.BETON_SERVE_URL ?? 'http://127.0.0.1:5780';

export default defineConfig({
  root: 'renderer',
  base: './',
  plugins: [react(), devCsp()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 1200,
  },
  server: {
    host: '127.0.0.1',
    proxy: {
      '/api': {
        target,
        // `beton serve` answers only requests that name it (Host, and Origin on POSTs):
        // the proxy addresses it as the target, and passes the dev page's own loopback
        // origin on as the target's. Any other origin goes through as it is (and is refused).
        changeOrigin: true,
        configure: (proxy) => {
          proxy.on('proxyReq', (proxyReq) => {
            const origin = proxyReq.getHeader('origin');
            if (typeof origin === 'string' && /^http:\/\/(127\.0\.0\.1|localhost|\[::1\]):\d+$/.test(origin))
              proxyReq.setHeader('origin', new URL(target).origin);
          });
        },
      },
    },
  },
});
