import { closeSync } from 'node:fs';
import { isRGBPixels, type ImageInput } from '../fields/image-codec.js';
import { notAnImage, sniff } from './format-sniff.js';
import { refuseFromHeader } from './header-limits.js';
import { FIX_DATA, fsReason, ImageReadError } from './read-error.js';
import { openRegular, readRange, sourceOf } from './source-file.js';

/** Bytes read per file: the signature and, for a JPEG, its frame header in all but odd files. */
const HEAD_BYTES = 4096;

/**
 * Why a source image would not be read, from its first few KiB alone, or null when its header
 * looks right: missing, unreadable, not a regular file, empty, no image signature, a header
 * announcing too many pixels (no decoder's leniency is second-guessed: a file that passes may
 * still fail to decode). Cheap (one open and one small
 * read), so a folder's every file can be checked before a build; the build's decode still has
 * the last word (damage past the header shows only there).
 */
export function headerProblem(input: ImageInput, baseDir?: string): string | null {
  if (isRGBPixels(input)) return null;
  const src = sourceOf(input, baseDir);
  if (src.bytes) return null;
  let opened: { fd: number; size: number };
  try {
    opened = openRegular(src.path!, src.confined);
  } catch (e) {
    return e instanceof ImageReadError ? e.message : fsReason(e);
  }
  try {
    if (opened.size === 0) return `the file is empty (0 bytes); ${FIX_DATA}`;
    const head = new Uint8Array(Math.min(opened.size, HEAD_BYTES));
    readRange(opened.fd, head, 0);
    const format = sniff(head);
    if (format === 'other') return notAnImage(head);
    return refuseFromHeader(head, opened.size)?.message ?? null;
  } catch (e) {
    return e instanceof ImageReadError ? e.message : fsReason(e);
  } finally {
    closeSync(opened.fd);
  }
}
