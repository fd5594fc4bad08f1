import { bad, good, type Read, type ValueParser } from './value-parser.js';

/**
 * The typed parsers of flag values. Each says what it expects in the words of the one
 * bad-value message (bad-value.ts) and refuses anything else; a command's table picks one per
 * flag, so no command converts or checks a flag's text by hand.
 */

/** "1,000" and " 8" are not numbers a user meant; "1e3", "0x10" and "" neither: digits, an optional sign and point. */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)$/;

interface Bounds {
  min?: number;
  max?: number;
}

function range({ min, max }: Bounds): string {
  if (min !== undefined && max !== undefined) return ` from ${min} to ${max}`;
  if (min !== undefined) return ` of at least ${min}`;
  if (max !== undefined) return ` of at most ${max}`;
  return '';
}

const within = (n: number, { min, max }: Bounds): boolean => (min === undefined || n >= min) && (max === undefined || n <= max);

/** A whole number within bounds (both optional): `--workers N`. */
export function integer(bounds: Bounds = {}): ValueParser<number> {
  return {
    expects: `a whole number${range(bounds)}`,
    read: (t) => {
      const n = Number(t);
      return /^[+-]?\d+$/.test(t) && Number.isSafeInteger(n) && within(n, bounds) ? good(n) : bad(t);
    },
  };
}

/** A number within bounds, or strictly above `above`: `--compress-probability P`, `--fps F`. */
export function decimal(bounds: Bounds & { above?: number } = {}): ValueParser<number> {
  const { above } = bounds;
  return {
    expects: above !== undefined ? `a number above ${above}` : `a number${range(bounds)}`,
    read: (t) => {
      const n = Number(t);
      return DECIMAL.test(t) && Number.isFinite(n) && within(n, bounds) && (above === undefined || n > above) ? good(n) : bad(t);
    },
  };
}

const SIZE_UNITS: Readonly<Record<string, number>> = { '': 1, b: 1, kib: 2 ** 10, mib: 2 ** 20, gib: 2 ** 30, tib: 2 ** 40 };

/** A size in bytes: a whole number, or one with a binary unit (`8MiB`, `20 GiB`): `--page-size BYTES`. */
export function size(bounds: Bounds = {}): ValueParser<number> {
  return {
    expects: `a size in bytes${range(bounds)} (e.g. 8388608 or 8MiB)`,
    read: (t) => {
      const m = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(t.trim());
      const unit = m ? SIZE_UNITS[m[2]!.toLowerCase()] : undefined;
      const n = m && unit !== undefined ? Number(m[1]) * unit : NaN;
      return Number.isSafeInteger(n) && within(n, bounds) ? good(n) : bad(t);
    },
  };
}

const SECONDS: Readonly<Record<string, number>> = { '': 1, s: 1, ms: 1e-3, m: 60, h: 3600 };

/** A duration above 0, as seconds: `30`, `1.5`, `500ms`, `2m`, `1h`: `--seconds S`, `--timeout S`. */
export function duration(): ValueParser<number> {
  return {
    expects: 'a duration in seconds above 0 (e.g. 30, 1.5, 2m)',
    read: (t) => {
      const m = /^(\d+\.?\d*|\.\d+)(ms|s|m|h|)$/.exec(t.trim());
      const n = m ? Number(m[1]) * SECONDS[m[2]!]! : NaN;
      return Number.isFinite(n) && n > 0 ? good(n) : bad(t);
    },
  };
}

/** "a, b or c". */
export const spoken = (words: readonly string[]): string =>
  words.length < 2 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;

/** One of a list of words (a near miss gets a did-you-mean): `--write-mode raw|jpg|smart|proportion`. */
export function oneOf<const W extends string>(words: readonly W[]): ValueParser<W> {
  return {
    expects: spoken(words),
    choices: words,
    read: (t) => ((words as readonly string[]).includes(t) ? good(t as W) : bad(t)),
  };
}

/** The item parser's values, comma-separated: `--workers 1,2,4`, `--engine beton,ffcv`. The bad item is named. */
export function listOf<T>(item: ValueParser<T>): ValueParser<T[]> {
  return {
    expects: `${item.expects} (comma-separated for several)`,
    ...(item.choices ? { choices: item.choices } : {}),
    read: (t) => {
      const out: T[] = [];
      for (const part of t.split(',')) {
        const r = item.read(part.trim());
        if (!r.ok) return r;
        out.push(r.value);
      }
      return good(out);
    },
  };
}

/** A word that stands for a value beside the parser's (`none` for no cap, `last` for the newest run). */
export function orWord<T, V>(parser: ValueParser<T>, word: string, value: V): ValueParser<T | V> {
  return {
    expects: `${parser.expects} or ${word}`,
    read: (t) => (t === word ? good(value) : parser.read(t)),
  };
}

/** Any text, as given (a command line, a host name the server checks). */
export function text(expects = 'text'): ValueParser<string> {
  return { expects, read: (t) => good(t) };
}

/** A file or folder path: anything but empty (where it must exist, the command's open says so). */
export function path(): ValueParser<string> {
  return { expects: 'a path', read: (t) => (t === '' ? bad(t) : good(t)) };
}

/** Text of a shape: `--decoder simple|rrc:SIZE|center:SIZE`. */
export function matching(shape: RegExp, expects: string): ValueParser<string> {
  return { expects, read: (t) => (shape.test(t) ? good(t) : bad(t)) };
}

/**
 * A value made by a function of another layer that throws on bad text (`--range a:b` by the
 * writer's selection, `--regex` by the exec protocol). `reason` turns its message into the
 * why after the one wording, where it says more than `expects` (a regex's syntax error).
 */
export function madeBy<T>(make: (text: string) => T, expects: string, reason?: (message: string) => string): ValueParser<T> {
  return {
    expects,
    read: (t): Read<T> => {
      try {
        return good(make(t));
      } catch (e) {
        return bad(t, reason?.((e as Error).message));
      }
    },
  };
}
