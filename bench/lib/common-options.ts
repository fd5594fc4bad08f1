import { writeFileSync } from 'node:fs';
import { intSetting } from './cli.js';

/**
 * The options every small benchmark takes (check, merge, object-storage): --help, --quick,
 * --reps N (env BENCH_REPS) and --json FILE. Spread into parseArgs' options; read back with
 * commonSettings; described by commonHelp; the result written by writeResult.
 */
export const COMMON_OPTIONS = {
  help: { type: 'boolean' },
  quick: { type: 'boolean' },
  reps: { type: 'string' },
  json: { type: 'string' },
} as const;

export interface CommonSettings {
  quick: boolean;
  /** Repetitions; medians are reported. */
  reps: number;
  /** Also write the JSON result there. */
  jsonFile: string | undefined;
}

/** Repetitions by default and under --quick. */
export interface RepsDefaults {
  reps: number;
  quickReps: number;
}

export function commonSettings(values: { quick?: boolean; reps?: string; json?: string }, d: RepsDefaults): CommonSettings {
  const quick = values.quick === true;
  return { quick, reps: intSetting(values.reps, 'reps', 'BENCH_REPS', quick ? d.quickReps : d.reps), jsonFile: values.json };
}

/** The help lines of the common options (after a benchmark's own). */
export function commonHelp(d: RepsDefaults): string {
  return `  --reps N      repetitions; medians are reported (default ${d.reps}; --quick ${d.quickReps})
  --json FILE   also write the JSON result there
  --quick       a small smoke run`;
}

/** Prints the result as one JSON line (for scripts), and writes it to --json FILE when given. */
export function writeResult(result: object, jsonFile: string | undefined): void {
  console.log(JSON.stringify(result));
  if (jsonFile) writeFileSync(jsonFile, JSON.stringify(result, null, 2) + '\n');
}
