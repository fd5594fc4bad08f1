import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';

/**
 * What bench/run.js calls: every benchmark module exports `main`, gets the arguments after
 * its name, and returns the exit code (run.js sets it; nothing here calls process.exit,
 * so pending output is flushed).
 */
export type BenchMain = (argv: string[]) => Promise<number>;

/** Thrown for bad command-line input; run.js-facing mains turn it into exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/**
 * A benchmark's `main` from its parts: `parse` the arguments ('help' for --help), then
 * `run`. Bad input — a UsageError, or parseArgs' ERR_PARSE_ARGS_* errors for unknown or
 * malformed flags — prints the message and the help and exits 2.
 */
export function benchMain<C>(
  name: string,
  help: string,
  parse: (argv: string[]) => C | 'help',
  run: (cfg: C) => Promise<number | void>,
): BenchMain {
  return async (argv) => {
    let cfg: C | 'help';
    try {
      cfg = parse(argv);
    } catch (e) {
      const code: unknown = (e as { code?: unknown }).code;
      if (e instanceof UsageError || (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'))) {
        console.error(`${name}: ${(e as Error).message}\n${help}`);
        return 2;
      }
      throw e;
    }
    if (cfg === 'help') {
      console.log(help);
      return 0;
    }
    return (await run(cfg)) ?? 0;
  };
}

/** Parses a positive integer option; `from` names its origin in the error message. */
export function positiveInt(value: string, from: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${from} must be a positive integer, got "${value}"`);
  return n;
}

export function nonNegativeInt(value: string, from: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`${from} must be a non-negative integer, got "${value}"`);
  return n;
}

/**
 * Flag, else environment variable, else default: environment variables let CI or a
 * wrapper script shorten runs without editing the npm command line.
 */
export function intSetting(flag: string | undefined, flagName: string, envName: string, fallback: number): number {
  if (flag !== undefined) return positiveInt(flag, `--${flagName}`);
  const env = process.env[envName];
  if (env !== undefined && env !== '') return positiveInt(env, envName);
  return fallback;
}

/** Comma-separated list whose items must come from `allowed`. */
export function listSetting<T extends string>(
  value: string | undefined,
  flagName: string,
  allowed: readonly T[],
  fallback: readonly T[],
): T[] {
  if (value === undefined) return [...fallback];
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const item of items) {
    if (!(allowed as readonly string[]).includes(item))
      throw new UsageError(`--${flagName}: unknown value "${item}" (allowed: ${allowed.join(', ')})`);
  }
  if (items.length === 0) throw new UsageError(`--${flagName} is empty`);
  return items as T[];
}

/** True when the module at `metaUrl` is the script node was started with. */
export function isEntryPoint(metaUrl: string): boolean {
  const entry = process.argv[1];
  return entry !== undefined && resolve(entry) === fileURLToPath(metaUrl);
}

/** Runs a BenchMain as a standalone script (node dist/bench/<name>.js …). */
export function runAsScript(main: BenchMain): void {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
      process.exitCode = 1;
    },
  );
}
