// Issue 23: `beton --version`, `--help` and did-you-mean load no command module, and a command's
// --help loads only that command (core/cli/command-table.ts). Checked by what loads, not by
// time: the CLI runs with a loader hook (--import) that records every module URL it loads
// (ESM through a load hook, CommonJS packages from require.cache at exit). Before the table,
// main.ts imported every command, and with them the writer, the services, zod and hyparquet.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../core/cli/command-table.js';
import { CLI } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-lazy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HOOKS = join(dir, 'hooks.mjs');
writeFileSync(
  HOOKS,
  `import { appendFileSync } from 'node:fs';
let file;
export function initialize(data) { file = data.file; }
export async function load(url, context, next) { appendFileSync(file, url + '\\n'); return next(url, context); }
`,
);
const TRACE = join(dir, 'trace.mjs');
writeFileSync(
  TRACE,
  `import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
const file = process.env.BETON_MODULE_TRACE;
register(${JSON.stringify(pathToFileURL(HOOKS).href)}, { data: { file } });
const require = createRequire(import.meta.url);
process.on('exit', () => appendFileSync(file, Object.keys(require.cache).join('\\n') + '\\n'));
`,
);

let n = 0;
/** The module URLs (and CommonJS paths) `beton ARGS` loads, and its exit code. */
function loadedBy(...args: string[]): { status: number | null; stdout: string; modules: string[] } {
  const out = join(dir, `modules-${n++}.txt`);
  writeFileSync(out, '');
  const r = spawnSync(process.execPath, ['--import', pathToFileURL(TRACE).href, CLI, ...args], {
    encoding: 'utf8',
    env: { ...process.env, BETON_DEBUG: '', BETON_MODULE_TRACE: out },
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, modules: readFileSync(out, 'utf8').split('\n').filter(Boolean) };
}

/** What only commands need: the writer, services, app use cases, and the heavy packages. */
const HEAVY = /\/dist\/core\/(writer|services|app|profile|runs|loader)\/|node_modules\/(sharp|better-sqlite3|zod|hyparquet|@aws-sdk)\//;
const COMMAND_MODULE = /\/dist\/core\/cli\/[a-z-]+-command\.js$/;

describe('the CLI loads only what a command needs', () => {
  it.each([['--version'], ['--help'], ['biuld']])('beton %s loads no command module and nothing heavy', (arg) => {
    const r = loadedBy(arg);
    expect(r.status).toBe(arg === 'biuld' ? 2 : 0);
    // The hook works: the CLI itself was recorded.
    expect(r.modules.some((m) => m.endsWith('/dist/core/cli/main.js'))).toBe(true);
    expect(r.modules.filter((m) => HEAVY.test(m) || COMMAND_MODULE.test(m))).toEqual([]);
  });

  it("beton inspect --help loads inspect's module and no other command's", () => {
    const r = loadedBy('inspect', '--help');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^beton inspect FILE/);
    expect(r.modules.filter((m) => COMMAND_MODULE.test(m)).map((m) => m.replace(/.*\//, ''))).toEqual(['inspect-command.js']);
    expect(r.modules.filter((m) => /\/dist\/core\/(writer|services)\/|node_modules\/(sharp|better-sqlite3)\//.test(m))).toEqual([]);
  });

  it('every command in the table loads, with its own help text', async () => {
    for (const [name, entry] of Object.entries(COMMANDS)) {
      const c = await entry.load();
      expect(c.help, name).toMatch(new RegExp(`^beton ${name}\\b`));
      expect(typeof c.run).toBe('function');
      expect(entry.summary.includes('\n'), name).toBe(false);
    }
  });
});
