import { didYouMean } from '../did-you-mean.js';
import { UsageError } from '../usage-error.js';
import type { ValueParser } from './value-parser.js';

/**
 * A value that is not one: the one wording every command uses, `--FLAG expects WHAT, got
 * "TEXT"` (`ID expects …` for a positional argument), plus a did-you-mean for a near miss of
 * a word, or why, when a check has more to say. Bad usage: exit code 2, as every usage error.
 */
export class BadValueError extends UsageError {
  override readonly name: string = 'BadValueError';
  constructor(
    /** `--workers`, or the placeholder of a positional argument (`ID`). */
    readonly what: string,
    readonly expects: string,
    readonly got: string,
    more = '',
  ) {
    super(`${what} expects ${expects}, got "${got}"${more}`, 'BAD_VALUE');
  }
}

/** The value of TEXT by the parser, or the one bad-value error naming `what`. */
export function readValue<T>(what: string, parser: ValueParser<T>, text: string): T {
  const r = parser.read(text);
  if (r.ok) return r.value;
  const guess = parser.choices ? didYouMean(r.bad, parser.choices) : undefined;
  throw new BadValueError(what, parser.expects, r.bad, guess ? ` (did you mean ${guess}?)` : r.why ? `: ${r.why}` : '');
}

/** The value of `--flag TEXT`. */
export const readFlag = <T>(flag: string, parser: ValueParser<T>, text: string): T => readValue(`--${flag}`, parser, text);
