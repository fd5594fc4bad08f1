import { regularReadStream } from '../../native/regular-file.js';

/**
 * Counting rows is worth a pass only for small files: below this size a build gets an
 * exact length (progress, ETA, no spill file); above it the length stays unknown.
 */
export const COUNT_LIMIT_BYTES = 64 * 1024 * 1024;

const NL = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;

/**
 * Lines with at least one byte other than "\r" (what csv-parse's skip_empty_lines keeps)
 * or, with `blankIsEmpty`, other than whitespace (what the JSONL reader keeps). Returns
 * null when `stopAtQuote` and a '"' shows up: quoted fields may span lines, so the caller
 * must parse instead.
 */
export async function countLines(path: string, opts: { blankIsEmpty?: boolean; stopAtQuote?: boolean } = {}): Promise<number | null> {
  let count = 0;
  let lineHasContent = false;
  for await (const chunk of regularReadStream(path) as AsyncIterable<Buffer>) {
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (b === NL) {
        if (lineHasContent) count++;
        lineHasContent = false;
      } else if (b === QUOTE && opts.stopAtQuote) {
        return null;
      } else if (!lineHasContent && b !== CR && !(opts.blankIsEmpty && (b === 0x20 || b === 0x09))) {
        lineHasContent = true;
      }
    }
  }
  return lineHasContent ? count + 1 : count;
}
