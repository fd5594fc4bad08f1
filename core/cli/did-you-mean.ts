import { closest, distance } from 'fastest-levenshtein';

/**
 * The known word closest to a mistyped one (`--max-resolutoin` → `--max-resolution`,
 * `biuld` → `build`), or undefined when nothing is close enough to be a typo: at most a
 * third of the word's letters differ (two for short words).
 */
export function didYouMean(word: string, known: readonly string[]): string | undefined {
  if (known.length === 0 || word === '') return undefined;
  const best = closest(word, [...known]);
  const bare = word.replace(/^-+/, '');
  return distance(word, best) <= Math.max(2, Math.floor(bare.length / 3)) ? best : undefined;
}

/** The long options a command's help text lists (`--max-resolution`, `--json`, …). */
export function optionsInHelp(help: string): string[] {
  return [...new Set(help.match(/--[a-z][a-z0-9-]*/g) ?? [])];
}

/**
 * Node's parseArgs says `Unknown option '--x'. To specify a positional argument starting with
 * a '-', place it at the end of the command after '--', as in '-- "--x"` — a half-quoted
 * sentence about something else. This is the one line a user needs instead.
 */
export function unknownOptionMessage(message: string, help: string): string | undefined {
  const m = /^Unknown option '(-[^']*)'/.exec(message);
  if (!m) return undefined;
  const flag = m[1]!.split('=')[0]!;
  const guess = didYouMean(flag, optionsInHelp(help));
  return `unknown option ${flag}${guess ? ` (did you mean ${guess}?)` : ''}`;
}
