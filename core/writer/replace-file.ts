import { constants } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { tempPathFor } from './temp-files.js';

/**
 * Writes `text` to `path` the way the .beton itself is written: into a fresh file beside
 * it, created exclusively (O_EXCL, and O_NOFOLLOW where the platform has it), then renamed
 * over `path`. A symlink or a hard link already sitting at `path` is replaced, never
 * written through, so a file a served folder links to elsewhere is left as it was, and a
 * reader never sees half a file.
 */
export async function replaceFile(path: string, text: string): Promise<void> {
  const tmp = tempPathFor(path);
  const fh = await open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o644);
  let ok = false;
  try {
    await fh.writeFile(text);
    await fh.close();
    await rename(tmp, path);
    ok = true;
  } finally {
    if (!ok) {
      await fh.close().catch(() => undefined);
      await unlink(tmp).catch(() => undefined);
    }
  }
}
