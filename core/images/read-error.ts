// Why a source image cannot be read, in words that say what to do about it.

/** Largest source image decoded, in pixels (as sharp's limitInputPixels). */
export const MAX_INPUT_PIXELS = 2 ** 28;

/** What to do about a file whose data is damaged. */
export const FIX_DATA = 're-download or remove it, or build with --on-error skip';
/** What to do about an image too large to decode. */
export const FIX_SIZE = 'shrink it or remove it, or build with --on-error skip';
/** What to do about a file in a format we cannot decode. */
export const FIX_FORMAT = 'convert it to JPEG or PNG, or remove it, or build with --on-error skip';

/** A reason a source image cannot be read (becomes "cannot read image <file>: <reason>"). */
export class ImageReadError extends Error {}
export const unreadable = (what: string, fix: string): ImageReadError => new ImageReadError(`${what}; ${fix}`);

export function fsReason(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  switch (err.code) {
    case 'ENOENT':
      return 'the file does not exist (moved or deleted since the folder was listed?); restore it, or build with --on-error skip';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied; make it readable (chmod a+r) or remove it, or build with --on-error skip';
    case 'ELOOP':
      return 'the path is a symbolic link loop (a link that points back to itself); fix or remove the link, or build with --on-error skip';
    case 'EISDIR':
      return 'it is a directory, not an image file';
    default:
      return err.message;
  }
}
