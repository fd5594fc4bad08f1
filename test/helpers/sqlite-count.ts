import Database from 'better-sqlite3';

/** The number of rows in `table` of the SQLite file at `path`, read through a read-only connection of its own. */
export function countRows(path: string, table: string): number {
  const db = new Database(path, { readonly: true });
  try {
    return (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
  } finally {
    db.close();
  }
}
