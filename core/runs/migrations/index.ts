/**
 * The runs database's migrations, in order. Migration N (1-based) brings the schema from
 * `PRAGMA user_version` N-1 to N. Append new ones; never edit, reorder or remove a released one.
 */
import * as m001 from './001-initial.js';
import * as m002 from './002-dataset-content.js';
import * as m003 from './003-run-failure.js';
import * as m004 from './004-sample-process-cpu-wait.js';
import * as m005 from './005-point-engine.js';
import * as m006 from './006-run-kind-open.js';
import * as m007 from './007-run-answer.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
  /** A table rebuild: run with foreign keys off (a DROP TABLE would cascade), checked before the commit. */
  foreignKeysOff: boolean;
}

const modules: ReadonlyArray<{ name: string; sql: string; foreignKeysOff?: boolean }> = [m001, m002, m003, m004, m005, m006, m007];

export const MIGRATIONS: readonly Migration[] = modules.map((m, i) => ({
  version: i + 1,
  name: m.name,
  sql: m.sql,
  foreignKeysOff: m.foreignKeysOff === true,
}));
