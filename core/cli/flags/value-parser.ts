/**
 * How a flag's text becomes its value. `expects` says what a good value is in the words the
 * one bad-value message uses (`--workers expects a whole number from 0 to 256, got "x"`), so
 * the check and its message are written once, in the parser, not in each command.
 */
export interface ValueParser<T> {
  /** What a good value is: "a whole number from 0 to 256", "raw, jpg, smart or proportion". */
  readonly expects: string;
  /** The words a value may be (enums): a near miss gets a did-you-mean. */
  readonly choices?: readonly string[];
  /** The value, or the text that is not one (for a list: the bad item), with why when a check has more to say. */
  read(text: string): Read<T>;
}

export type Read<T> = { ok: true; value: T } | { ok: false; bad: string; why?: string };

export const good = <T>(value: T): Read<T> => ({ ok: true, value });
export const bad = (text: string, why?: string): Read<never> => ({ ok: false, bad: text, ...(why ? { why } : {}) });
