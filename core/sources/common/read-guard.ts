/**
 * Confines the files a source reads on its own: the image paths in a list's rows, the
 * folders an ImageFolder walk enters, the videos of a list. `beton serve` passes one (built
 * from the folders it serves) so that a list cannot make the server read, and put into a
 * dataset it then previews, a file outside them; the CLI and the desktop app pass none,
 * because there the list is the user's own and may name any file.
 *
 * Returns the path to open (symlinks resolved, so what is checked is what is opened), or
 * throws an Error saying why the path may not be read. Missing files are not its business:
 * the reader reports them as usual.
 */
export type ReadGuard = (path: string) => string;

/** Whether `path` is refused by `guard` (no guard: nothing is). */
export function refusedBy(guard: ReadGuard | undefined, path: string): boolean {
  if (!guard) return false;
  try {
    guard(path);
    return false;
  } catch {
    return true;
  }
}
