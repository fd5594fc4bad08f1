/**
 * better-sqlite3, loaded on first use. It is an optional dependency: its install needs a
 * prebuilt binary from GitHub or a C++ compiler, and where neither is available npm leaves it
 * out rather than failing the whole install. Everything but the runs database (the writer,
 * reader, loader, `beton build`, `bench-loader`) works without it; opening the database then
 * fails with one line saying how to get it.
 */
import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';
import { BetonError } from '../format/errors.js';

export type SqliteModule = typeof Database;

let loaded: SqliteModule | undefined;

/** The better-sqlite3 module; throws BetonError SQLITE_UNAVAILABLE when it is not installed. */
export function sqlite(): SqliteModule {
  if (loaded !== undefined) return loaded;
  try {
    loaded = createRequire(import.meta.url)('better-sqlite3') as SqliteModule;
  } catch (e) {
    throw new BetonError('SQLITE_UNAVAILABLE', 'the runs database needs the better-sqlite3 package, which is not installed here', {
      cause: e,
      hint: 'Install it with `npm install better-sqlite3` (it downloads a prebuilt binary from GitHub, or compiles with python3, make and a C++ compiler); everything else works without it.',
    });
  }
  return loaded;
}

/** True when `e` is a better-sqlite3 SqliteError (false when the module was never loaded). */
export function isSqliteErrorObject(e: unknown): e is Error & { code: string } {
  return loaded !== undefined && e instanceof loaded.SqliteError;
}
