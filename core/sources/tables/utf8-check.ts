import { Transform, type TransformCallback } from 'node:stream';
import { BetonEncodeError } from '../../format/errors.js';

/**
 * Passes a text file's bytes through unchanged and fails on the first invalid UTF-8
 * sequence with `file:line`, instead of letting the decoder turn it into U+FFFD: a Latin-1
 * CSV would otherwise be stored with silently replaced characters (issue 19 item 14). The
 * check is the platform's fatal TextDecoder on each chunk (native speed, split sequences
 * carried over by stream mode); only on a failure are bytes scanned to name the line.
 */
export function utf8Check(path: string): Transform {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let lines = 1;
  return new Transform({
    transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
      try {
        decoder.decode(chunk, { stream: true });
      } catch {
        done(invalid(path, lines + newlinesBefore(chunk, firstInvalid(chunk))));
        return;
      }
      for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, at + 1)) lines++;
      done(null, chunk);
    },
    flush(done: TransformCallback): void {
      try {
        decoder.decode();
      } catch {
        done(invalid(path, lines, 'the file ends inside a UTF-8 sequence'));
        return;
      }
      done();
    },
  });
}

function invalid(path: string, line: number, what = 'invalid UTF-8'): BetonEncodeError {
  return new BetonEncodeError(
    'BAD_VALUE',
    `${path}:${line}: ${what}; the file must be UTF-8 text (re-save it as UTF-8, e.g. iconv -f latin1 -t utf-8)`,
    { source: path },
  );
}

function newlinesBefore(b: Buffer, end: number): number {
  let n = 0;
  for (let at = b.indexOf(10); at >= 0 && at < end; at = b.indexOf(10, at + 1)) n++;
  return n;
}

/** Offset of the first byte that cannot start or continue a UTF-8 sequence here (approximate at a chunk's start). */
function firstInvalid(b: Buffer): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    const n = c < 0x80 ? 0 : c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : -1;
    if (n < 0) {
      // A continuation byte at the very start may belong to the previous chunk's sequence.
      if (i < 3 && c >= 0x80 && c <= 0xbf) {
        i++;
        continue;
      }
      return i;
    }
    for (let k = 1; k <= n; k++) if (i + k < b.length && (b[i + k]! & 0xc0) !== 0x80) return i;
    i += n + 1;
  }
  return b.length;
}
