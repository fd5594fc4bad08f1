import type { Db } from './connection.js';
import { RunsDbError } from './errors.js';

// What the runs database's stores (catalog.ts, builds-store.ts, run-writes.ts, run-reads.ts)
// share: the open connection with its file's path, the write transaction, and reading back
// the JSON they stored. Opening the file is connection.ts; RunsDb (runs-db.ts) holds one Store.

/** An open runs database: the connection, and the path its messages name. */
export interface Store {
  readonly db: Db;
  readonly path: string;
}

/** Runs `fn` in a write transaction taken at once (BEGIN IMMEDIATE): no deadlocks between writers. */
export function writeTransaction<T>(s: Store, fn: () => T): T {
  return s.db.transaction(fn).immediate();
}

/** A stored JSON column, parsed; text that is not JSON means the file was edited or damaged (CORRUPT). */
export function parseJson<T>(text: string, what: string): T {
  try {
    return JSON.parse(text) as T;
  } catch (e) {
    throw new RunsDbError('CORRUPT', `stored ${what} is not valid JSON (${(e as Error).message}); the database file was edited or damaged`);
  }
}
