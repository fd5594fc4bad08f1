import { parseArgs } from 'node:util';
import { UsageError } from '../usage-error.js';
import { readFlag } from './bad-value.js';
import type { ValueParser } from './value-parser.js';

/**
 * A command's flags as one table: name → kind, placeholder, help and parser. The table makes
 * the parser's options (parseFlags), the help's lines (flag-help.ts) and the checks of every
 * value (the parser's, in the one bad-value wording); `build-flags.ts` showed the way for the
 * build's value flags. Adding a flag to a command is one row.
 */
interface FlagBase {
  /** The help text, one string a line (continuation lines are indented under the first). */
  readonly help: readonly string[];
  /** A one-letter alias (`-o`). */
  readonly short?: string;
  /** Another flag of the table without which this one means nothing (`--crop` goes with `--advise`). */
  readonly with?: string;
}

/** A flag without a value (`--json`): true when given. */
export interface SwitchFlag extends FlagBase {
  readonly kind: 'switch';
}

/** A flag with a value (`--workers N`), once; `fallback` is its value when not given. */
export interface ValueFlag<T> extends FlagBase {
  readonly kind: 'value';
  /** The placeholder in the help: `N`, `FILE`, `a:b`. */
  readonly arg: string;
  readonly parser: ValueParser<T>;
  readonly fallback?: T;
}

/** A flag that may be given again (`--allow-host NAME` …): every value, in order. */
export interface RepeatedFlag<T> extends FlagBase {
  readonly kind: 'repeated';
  readonly arg: string;
  readonly parser: ValueParser<T>;
}

export type Flag = SwitchFlag | ValueFlag<unknown> | RepeatedFlag<unknown>;
export type FlagTable = Readonly<Record<string, Flag>>;

const lines = (help: string | readonly string[]): readonly string[] => (typeof help === 'string' ? [help] : help);

/** `--json`: a switch. */
export const switchFlag = (help: string | readonly string[], short?: string): SwitchFlag => ({
  kind: 'switch',
  help: lines(help),
  ...(short ? { short } : {}),
});

/** `--workers N`: a value read by `parser` (undefined when not given). */
export function valueFlag<T>(arg: string, parser: ValueParser<T>, help: string | readonly string[], short?: string): ValueFlag<T> {
  return { kind: 'value', arg, parser, help: lines(help), ...(short ? { short } : {}) };
}

/** `--port N` with a value when not given: the parsed value is never undefined. */
export function defaultedFlag<T>(
  arg: string,
  parser: ValueParser<T>,
  fallback: T,
  help: string | readonly string[],
): ValueFlag<T> & { readonly fallback: T } {
  return { kind: 'value', arg, parser, fallback, help: lines(help) };
}

/** The flag, given only with `other` (checked by parseFlags: `--crop goes with --advise`). */
export const goesWith = <F extends Flag>(flag: F, other: string): F => ({ ...flag, with: other });

/** `--allow-host NAME`, repeatable. */
export function repeatedFlag<T>(arg: string, parser: ValueParser<T>, help: string | readonly string[]): RepeatedFlag<T> {
  return { kind: 'repeated', arg, parser, help: lines(help) };
}

/** The parsed value of a flag: a switch true or undefined, a value typed by its parser, a repeated flag a list. */
export type FlagValue<F> = F extends SwitchFlag
  ? boolean | undefined
  : F extends RepeatedFlag<infer T>
    ? T[] | undefined
    : F extends ValueFlag<infer T> & { readonly fallback: unknown }
      ? T
      : F extends ValueFlag<infer T>
        ? T | undefined
        : never;

export type FlagValues<F extends FlagTable> = { -readonly [K in keyof F]: FlagValue<F[K]> };

/** parseArgs' options for a table (the text of every value; parseFlags reads them). */
export function parseArgsOptions(table: FlagTable): Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }> {
  return Object.fromEntries(
    Object.entries(table).map(([name, f]) => [
      name,
      {
        type: f.kind === 'switch' ? 'boolean' : 'string',
        ...(f.kind === 'repeated' ? { multiple: true } : {}),
        ...(f.short ? { short: f.short } : {}),
      },
    ]),
  );
}

/**
 * Splits argv by the table and reads every value given: an unknown flag, a missing value or
 * a bad one is a usage error (exit 2) before the command does anything.
 */
export function parseFlags<F extends FlagTable>(argv: string[], table: F): { values: FlagValues<F>; positionals: string[] } {
  const parsed = parseArgs({ args: argv, allowPositionals: true, options: parseArgsOptions(table) });
  const raw = parsed.values as Record<string, string | boolean | string[] | undefined>;
  const values: Record<string, unknown> = {};
  for (const [name, f] of Object.entries(table)) {
    const given = raw[name];
    if (f.kind === 'switch') values[name] = given;
    else if (f.kind === 'repeated') values[name] = (given as string[] | undefined)?.map((t) => readFlag(name, f.parser, t));
    else values[name] = given === undefined ? f.fallback : readFlag(name, f.parser, given as string);
  }
  for (const [name, f] of Object.entries(table))
    if (f.with !== undefined && raw[name] !== undefined && raw[f.with] === undefined)
      throw new UsageError(`--${name} goes with --${f.with}`);
  return { values: values as FlagValues<F>, positionals: parsed.positionals };
}
