// Which better-sqlite3 binary each runtime loads (defect 9): Node and a packaged app use
// better-sqlite3's own build, Electron started from a checkout its separate Electron build,
// and a missing or wrong-ABI binary is a BetonError that says what to run, not a crash.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BetonError } from '../../core/format/errors.js';
import { RunsDb } from '../../core/runs/runs-db.js';
import { electronBindingPath, REBUILD_COMMAND, sqliteBindingError, sqliteNativeBinding } from '../../core/runs/sqlite-binding.js';

const tmp = mkdtempSync(join(tmpdir(), 'beton-binding-'));
const nodeBuild = join(
  dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json')),
  'build',
  'Release',
  'better_sqlite3.node',
);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const thrown = (fn: () => unknown): unknown => {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected a throw');
};

describe('sqliteNativeBinding', () => {
  it('leaves Node and a packaged Electron app to better-sqlite3 (its own build/)', () => {
    expect(sqliteNativeBinding({})).toBeUndefined();
    expect(sqliteNativeBinding({ electron: '41.0.4', bindingsDir: join(tmp, 'none') })).toBeUndefined();
  });

  it('points Electron from a checkout at native-bindings/electron/<version>/', () => {
    const dir = join(tmp, 'present');
    const file = electronBindingPath('41.0.4', dir);
    expect(file).toBe(join(dir, 'electron', '41.0.4', 'better_sqlite3.node'));
    mkdirSync(dirname(file), { recursive: true });
    copyFileSync(nodeBuild, file);
    expect(sqliteNativeBinding({ electron: '41.0.4', defaultApp: true, bindingsDir: dir })).toBe(file);
  });

  it('a missing Electron build is SQLITE_BINDING_MISSING naming the file and the command to run', () => {
    const dir = join(tmp, 'missing');
    const e = thrown(() => sqliteNativeBinding({ electron: '41.0.4', defaultApp: true, bindingsDir: dir }));
    expect(e).toBeInstanceOf(BetonError);
    const be = e as BetonError;
    expect(be.code).toBe('SQLITE_BINDING_MISSING');
    expect(be.message).toContain('Electron 41.0.4');
    expect(be.message).toContain(electronBindingPath('41.0.4', dir));
    expect(be.hint).toContain(REBUILD_COMMAND);
  });

  it('a binary of another ABI becomes SQLITE_BINDING_MISMATCH with what to run; other errors pass through', () => {
    const dl = Object.assign(
      new Error(
        'The module x.node was compiled against a different Node.js version using\nNODE_MODULE_VERSION 115. This version of Node.js requires NODE_MODULE_VERSION 140.',
      ),
      { code: 'ERR_DLOPEN_FAILED' },
    );
    const inElectron = sqliteBindingError(dl, { electron: '41.0.4', defaultApp: true }) as BetonError;
    expect(inElectron.code).toBe('SQLITE_BINDING_MISMATCH');
    expect(inElectron.message).toContain('Electron 41.0.4');
    expect(inElectron.message).not.toContain('\n');
    expect(inElectron.hint).toContain(REBUILD_COMMAND);
    const inNode = sqliteBindingError(dl, {}) as BetonError;
    expect(inNode.hint).toContain('npm rebuild better-sqlite3');
    const other = new Error('disk I/O error');
    expect(sqliteBindingError(other, {})).toBe(other);
  });
});

describe('RunsDb.open through the binding choice', () => {
  const saved = {
    electron: process.versions.electron,
    defaultApp: (process as { defaultApp?: boolean }).defaultApp,
    dir: process.env.BETON_NATIVE_BINDINGS,
  };
  afterEach(() => {
    if (saved.electron === undefined) delete (process.versions as Record<string, string>).electron;
    (process as { defaultApp?: boolean }).defaultApp = saved.defaultApp;
    if (saved.dir === undefined) delete process.env.BETON_NATIVE_BINDINGS;
    else process.env.BETON_NATIVE_BINDINGS = saved.dir;
  });
  const actAsElectronCheckout = (dir: string): void => {
    Object.defineProperty(process.versions, 'electron', { value: '41.0.4', configurable: true, enumerable: true });
    (process as { defaultApp?: boolean }).defaultApp = true;
    process.env.BETON_NATIVE_BINDINGS = dir;
  };

  it('fails with the clear message, before touching the file, when the Electron build is missing', () => {
    actAsElectronCheckout(join(tmp, 'missing2'));
    const e = thrown(() => RunsDb.open(join(tmp, 'a', 'runs.sqlite'))) as BetonError;
    expect(e.code).toBe('SQLITE_BINDING_MISSING');
  });

  it('opens with the Electron build when it is there', () => {
    const dir = join(tmp, 'e2');
    const file = electronBindingPath('41.0.4', dir);
    mkdirSync(dirname(file), { recursive: true });
    copyFileSync(nodeBuild, file); // Node's ABI here: the process is Node pretending to be Electron
    actAsElectronCheckout(dir);
    const db = RunsDb.open(join(tmp, 'b', 'runs.sqlite'));
    expect(db.listRuns()).toEqual([]);
    db.close();
    expect(createRequire(import.meta.url).cache[file]).toBeDefined();
  });
});
