/**
 * What an end-to-end suite needs: built CLI and renderer, `beton serve` on a folder, and
 * headless Chromium (Debian's /usr/bin/chromium through playwright-core).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type ConsoleMessage, type Page } from 'playwright-core';
import { afterAll, beforeAll, inject } from 'vitest';
import { requires } from '../helpers/requires.js';
import { CHROMIUM, HAVE_CHROMIUM, LAUNCH } from './chromium.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SHOTS = join(ROOT, 'test-output', 'screenshots');
/** Whether this file's e2e tests can run: without Chromium a skip with a warning, under CI=true a failure (requires()). */
export const needChromium = (): boolean =>
  requires('Chromium', `none at ${CHROMIUM} (apt-get install -y chromium, or set BETON_CHROMIUM)`, HAVE_CHROMIUM);

/** Newest modification time under `p` (files only). */
function newest(p: string): number {
  if (!existsSync(p)) return 0;
  const st = statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  return readdirSync(p).reduce((m, n) => Math.max(m, newest(join(p, n))), 0);
}

/** The CLI and the renderer must be built: each is built here when missing or older than its sources. */
function ensureBuilt(): void {
  const cli = join(ROOT, 'dist/core/cli/serve-command.js');
  if (!existsSync(cli) || statSync(cli).mtimeMs < newest(join(ROOT, 'core'))) {
    execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
      cwd: ROOT,
      stdio: 'inherit',
    });
  }
  const index = join(ROOT, 'renderer/dist/index.html');
  const sources = Math.max(
    newest(join(ROOT, 'renderer/src')),
    newest(join(ROOT, 'renderer/index.html')),
    newest(join(ROOT, 'renderer/public')),
    newest(join(ROOT, 'vite.config.ts')),
  );
  if (!existsSync(index) || statSync(index).mtimeMs < sources) {
    execFileSync(process.execPath, [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'], {
      cwd: ROOT,
      stdio: 'inherit',
    });
  }
}

/** Starts `beton serve DIR --port 0 [args]` and resolves with the URL it prints. */
function startServer(dir: string, env: NodeJS.ProcessEnv, args: string[] = []): Promise<{ proc: ChildProcess; url: string }> {
  return new Promise((ok, fail) => {
    const proc = spawn(process.execPath, [join(ROOT, 'bin/beton.js'), 'serve', dir, '--port', '0', ...args], {
      cwd: dir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    const timer = setTimeout(() => fail(new Error(`beton serve printed no URL in 30 s:\n${out}\n${err}`)), 30_000);
    proc.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /open (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        ok({ proc, url: m[1]! });
      }
    });
    proc.stderr!.on('data', (b: Buffer) => (err += b.toString()));
    proc.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`beton serve exited with ${code}:\n${out}\n${err}`));
    });
  });
}

async function stopServer(server: ChildProcess | null): Promise<void> {
  if (!server || server.exitCode !== null || server.signalCode !== null) return;
  const exited = new Promise((r) => server.once('exit', r));
  server.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
  if (server.exitCode === null) server.kill('SIGKILL');
}

/** What a suite asks of its browser beyond the defaults. */
interface PageOptions {
  /** Let the page save files (`page.waitForEvent('download')`). */
  downloads?: boolean;
  /** Permissions granted to the first server's origin (`clipboard-read`). */
  permissions?: string[];
  /** Console errors the suite provokes on purpose, so not problems (a 403 it asks for). */
  expected?: (m: ConsoleMessage) => boolean;
}

/**
 * The run's shared browser (test/e2e/shared-chromium.ts) when there is one, else a browser of
 * this file's own. `close()` ends either: for the shared one, only this file's connection.
 */
async function browserForFile(): Promise<Browser> {
  const endpoint = inject('chromiumEndpoint');
  return endpoint ? chromium.connect(endpoint) : chromium.launch(LAUNCH);
}

/** A browser page on `origin` that records page errors and console errors in `problems`. */
async function openPage(problems: string[], origin: string, opts: PageOptions): Promise<{ browser: Browser; page: Page }> {
  mkdirSync(SHOTS, { recursive: true });
  const browser = await browserForFile();
  const context = await browser.newContext({
    viewport: { width: 1280, height: 860 },
    reducedMotion: 'reduce',
    colorScheme: 'light',
    acceptDownloads: opts.downloads ?? false,
  });
  if (opts.permissions) await context.grantPermissions(opts.permissions, { origin });
  const page = await context.newPage();
  page.setDefaultTimeout(60_000);
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && !opts.expected?.(m)) problems.push(`console: ${m.text()} (${m.location().url})`);
  });
  return { browser, page };
}

export const shot = (page: Page, name: string): Promise<Buffer> => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

/** One served folder and one page, shared by the tests of a describe block (filled in by its beforeAll). */
export interface AppSession {
  tmp: string;
  /** The runs database the server writes (BETON_DB). */
  db: string;
  /** The address `beton serve` printed, token included (a new one after `restart()`). */
  url: string;
  page: Page;
  /** Page and console errors seen so far (a test ends with `expect(problems).toEqual([])`). */
  problems: string[];
  /** Kills the server without a word (SIGKILL), as a crash would; the page stays open. */
  kill(): void;
  /** A new server on the same folder, database and arguments (a new port and token), the page opened and connected on it. */
  restart(): Promise<void>;
}

/**
 * Registers the beforeAll/afterAll of an e2e describe block: a temp folder (with the sample
 * images when `images`), `prepare(tmp)` to add files, `beton serve` on it with its own runs
 * database (`env(tmp)` adds variables), the app opened and connected. Call it inside the
 * describe; read the session in tests (or in a later beforeAll).
 */
export function serveApp(
  opts: {
    prefix: string;
    images?: boolean;
    prepare?: (tmp: string) => void | Promise<void>;
    env?: (tmp: string) => NodeJS.ProcessEnv;
    /** More `beton serve` arguments (`--allow-exec`). */
    args?: string[];
    cleanup?: () => void;
  } & PageOptions,
): AppSession {
  let server: ChildProcess | null = null;
  let browser: Browser | null = null;
  let env: NodeJS.ProcessEnv = {};
  const open = async (): Promise<void> => {
    await stopServer(server);
    ({ proc: server, url: session.url } = await startServer(session.tmp, env, opts.args ?? []));
    if (!browser) ({ browser, page: session.page } = await openPage(session.problems, new URL(session.url).origin, opts));
    await session.page.goto(session.url);
    await session.page.locator('[data-testid=connection][data-state=open]').waitFor();
  };
  const session: AppSession = {
    tmp: '',
    db: '',
    url: '',
    page: undefined as unknown as Page,
    problems: [],
    kill: () => {
      server?.kill('SIGKILL');
    },
    restart: open,
  };
  beforeAll(async () => {
    ensureBuilt();
    session.tmp = mkdtempSync(join(tmpdir(), opts.prefix));
    if (opts.images) cpSync(join(ROOT, 'assets/sample-images'), join(session.tmp, 'images'), { recursive: true });
    await opts.prepare?.(session.tmp);
    // After prepare: `env` may read what it made (a fake GPU's PATH).
    env = { ...process.env, BETON_DB: join(session.tmp, 'runs.sqlite'), ...opts.env?.(session.tmp) };
    session.db = env.BETON_DB!;
    await open();
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await stopServer(server);
    opts.cleanup?.();
    if (session.tmp) rmSync(session.tmp, { recursive: true, force: true });
  });
  return session;
}
