import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import { isSqliteErrorObject, sqlite } from './sqlite-module.js';
import { BetonError } from '../format/errors.js';
import { RunsDbError } from './errors.js';
import { MIGRATIONS } from './migrations/index.js';
import { sqliteBindingError, sqliteNativeBinding } from './sqlite-binding.js';

// The runs database's connection plumbing: opening the file (its folder, the native binding),
// the pragmas, the integrity check and the migrations. The queries live in runs-db.ts.

export type Db = Database.Database;

export interface OpenOptions {
  /** How long a write waits for another connection's write to finish (default 5000 ms). */
  busyTimeoutMs?: number;
  /**
   * Run PRAGMA quick_check when opening and fail with CORRUPT if the file is damaged
   * (default false). Without it a damaged file fails only in the queries that touch the
   * damaged pages: one command would report it while another exits 0 (or a profile run
   * would be lost after its sweep). The CLI and the app ask for it; it reads the whole file.
   */
  check?: boolean;
}

/** The schema version this code writes (PRAGMA user_version after migrating). */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** What to do about a damaged runs database (CORRUPT). */
const CORRUPT_HINT =
  'Move the file aside (a new database is made on the next run) or restore a backup; `sqlite3 FILE .recover` may save the runs in it. Or pass --db PATH to use another.';

/** SQLite's "this file is damaged / not a database" codes. */
const isCorruption = (code: string | null): boolean => code !== null && (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT'));

/** A RunsDbError CORRUPT for a SQLite corruption error, naming the file; other errors unchanged. */
export function corruptionError(e: unknown, file: string): unknown {
  const code = sqliteErrorCode(e);
  if (!isCorruption(code)) return e;
  // SQLite's own code stays in the message: it is what a search for the problem needs.
  const what = `${code === 'SQLITE_NOTADB' ? 'is not a runs database' : 'is damaged'} (${code}: ${(e as Error).message})`;
  return new RunsDbError('CORRUPT', `${file} ${what}`, { hint: CORRUPT_HINT, cause: e });
}

/** Whether `e` is SQLite's error with this code (SQLITE_CONSTRAINT_UNIQUE...). */
export function isSqliteError(e: unknown, code: string): boolean {
  return isSqliteErrorObject(e) && e.code === code;
}

/** An error raised by SQLite itself (not a database, disk full, busy past the timeout...), with its SQLITE_* code. */
export function sqliteErrorCode(e: unknown): string | null {
  return isSqliteErrorObject(e) ? e.code : null;
}

/**
 * Runs `fn`, retrying for up to `timeoutMs` while SQLite answers SQLITE_BUSY for a lock it
 * does not wait on by itself (journal-mode switches, WAL recovery). Sleeps synchronously:
 * every RunsDb method is synchronous, and this only happens while opening.
 */
function retryWhileBusy<T>(timeoutMs: number, fn: () => T): T {
  const deadline = Date.now() + timeoutMs;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let attempt = 0; ; attempt++) {
    try {
      return fn();
    } catch (e) {
      const code = sqliteErrorCode(e);
      if (code === null || !code.startsWith('SQLITE_BUSY') || Date.now() >= deadline) throw e;
      Atomics.wait(pause, 0, 0, Math.min(5 * 2 ** Math.min(attempt, 5), 100));
    }
  }
}

/** Creates the database's folder; a path through a file fails naming the folder, not as mkdir's bare EEXIST. */
function makeFolderOf(file: string): void {
  try {
    mkdirSync(dirname(file), { recursive: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'EIO';
    // mkdir -p answers EEXIST when a part of the path is a file.
    const why = code === 'EEXIST' || code === 'ENOTDIR' ? 'a part of that path is a file, not a folder' : (e as Error).message;
    throw new BetonError(code === 'EEXIST' ? 'ENOTDIR' : code, `cannot make the folder ${dirname(file)} for the runs database: ${why}`, {
      cause: e,
      hint: 'Pass --db PATH (or set BETON_DB) to a file in a folder you can write.',
    });
  }
}

/** PRAGMA quick_check (b-tree structure, record formats: the damage SQLite meets later as SQLITE_CORRUPT). */
function quickCheck(db: Db, file: string): void {
  const rows = db.pragma('quick_check') as Array<{ quick_check: string }>;
  // A row may hold several problems, one a line, after a "*** in database main ***" heading.
  const problems = rows
    .flatMap((r) => r.quick_check.split('\n'))
    .map((l) => l.trim())
    .filter((l) => l !== 'ok' && l !== '' && !l.startsWith('***'));
  if (problems.length) {
    throw new RunsDbError(
      'CORRUPT',
      `${file} is damaged: PRAGMA quick_check found ${problems.length} problem${problems.length === 1 ? '' : 's'}, the first: ${problems[0]}`,
      { hint: CORRUPT_HINT },
    );
  }
}

/**
 * Applies the migrations the file lacks, in order, in one IMMEDIATE transaction (so two
 * processes opening a fresh file at once do not both migrate: the second waits, then sees
 * the new user_version and has nothing to do).
 */
function migrate(db: Db): void {
  const version = (): number => Number(db.pragma('user_version', { simple: true }));
  const tooNew = (v: number): RunsDbError =>
    new RunsDbError(
      'NEWER_SCHEMA',
      `${db.name} has schema version ${v}, newer than this beton-studio understands (${SCHEMA_VERSION}); update beton-studio`,
    );
  const v0 = version();
  if (v0 > SCHEMA_VERSION) throw tooNew(v0);
  if (v0 === SCHEMA_VERSION) return;
  // PRAGMA foreign_keys is a no-op inside a transaction: a table rebuild needs it off before.
  const rebuild = MIGRATIONS.some((m) => m.version > v0 && m.foreignKeysOff);
  if (rebuild) db.pragma('foreign_keys = OFF');
  try {
    db.transaction(() => {
      const v = version();
      if (v > SCHEMA_VERSION) throw tooNew(v);
      for (const m of MIGRATIONS) {
        if (m.version <= v) continue;
        db.exec(m.sql);
        db.pragma(`user_version = ${m.version}`);
      }
      if (rebuild) {
        const broken = db.pragma('foreign_key_check') as unknown[];
        if (broken.length)
          throw new RunsDbError('CORRUPT', `${db.name}: migrating left ${broken.length} rows whose references are missing`);
      }
    }).immediate();
  } finally {
    if (rebuild) db.pragma('foreign_keys = ON');
  }
}

/**
 * Opens `file` (creating it and its folder if needed; ':memory:' for a private in-memory
 * database), sets the pragmas (WAL, busy timeout, foreign keys), checks it if asked and
 * migrates it. The caller has validated `busyTimeoutMs`.
 */
export function openConnection(file: string, opts: OpenOptions & { busyTimeoutMs: number }): Db {
  const busy = opts.busyTimeoutMs;
  if (file !== ':memory:') makeFolderOf(file);
  const nativeBinding = sqliteNativeBinding();
  let db: Db;
  try {
    const Sqlite = sqlite();
    db = new Sqlite(file, { timeout: busy, ...(nativeBinding ? { nativeBinding } : {}) });
  } catch (e) {
    throw sqliteBindingError(e);
  }
  try {
    db.pragma(`busy_timeout = ${busy}`);
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    retryWhileBusy(busy, () => {
      // Switching to WAL needs an exclusive lock and SQLite does not call the busy handler
      // for it, so two processes opening a fresh file at once could fail here: retry.
      // WAL is persistent, so once any process has set it, later opens only read it.
      if (db.pragma('journal_mode', { simple: true }) !== 'wal' && file !== ':memory:') db.pragma('journal_mode = WAL');
    });
    // Before migrating: a migration must not write into a damaged file.
    if (opts.check) quickCheck(db, file);
    retryWhileBusy(busy, () => migrate(db));
  } catch (e) {
    db.close();
    throw corruptionError(e, file);
  }
  return db;
}
