import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, unlinkSync } from 'node:fs';
import { open, readdir, unlink, type FileHandle } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';

/**
 * Temporary files of an output being written: `.OUT.tmp-<pid>-<hex>` beside OUT (plus
 * `.meta`/`.pages`/`.alloc` spill files of the same stem), renamed over OUT when complete.
 * A process killed with SIGKILL (or a machine that lost power) cannot remove its own, so
 * the next write of the same OUT removes those whose process is gone.
 *
 * The hex part is 8 digits naming the machine (a hash of its host name) then 8 random
 * ones: on a folder shared by several machines (a cluster's file system), a pid only
 * means something on the machine that wrote it, so files of other machines are left alone.
 */
const HOST_TAG = createHash('sha256').update(hostname()).digest('hex').slice(0, 8);

/** A fresh temporary name for `out`, in the same folder (so the final rename is atomic). */
export function tempPathFor(out: string): string {
  return join(dirname(out), `.${basename(out)}.tmp-${process.pid}-${HOST_TAG}${randomBytes(4).toString('hex')}`);
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The outputs whose temporary files a write of `out` owns: OUT, its skip report and its manifest. */
const stemsOf = (out: string): string[] => [basename(out), `${basename(out)}.skipped.json`, `${basename(out)}.manifest.json`];

/** The pid of a temporary file of `out` written on this machine, else null (not ours to judge). */
function pidOf(name: string, out: string): number | null {
  for (const stem of stemsOf(out)) {
    const m = new RegExp(`^\\.${escapeRe(stem)}\\.tmp-(\\d+)-([0-9a-f]{8,16})(\\.(meta|pages|alloc))?$`).exec(name);
    if (!m) continue;
    // 16 hex digits: machine tag + random. Shorter: written before the tag existed; taken as this machine's.
    if (m[2]!.length === 16 && m[2]!.slice(0, 8) !== HOST_TAG) return null;
    const pid = Number(m[1]);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  }
  return null;
}

/** Whether a process with this pid exists (EPERM: it does, owned by someone else). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the temporary files of `out` left by processes of this machine that no longer
 * run. A live process's files are never touched (a pid reused since then keeps the file:
 * the safe side). Returns the names removed. Failures to list or remove are ignored: this
 * is housekeeping, and the write itself reports a folder it cannot use.
 */
export async function removeStaleTemps(out: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dirname(out));
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const pid = pidOf(name, out);
    if (pid === null || pid === process.pid || alive(pid)) continue;
    try {
      await unlink(join(dirname(out), name));
      removed.push(name);
    } catch {
      // Gone already (another build cleaning up too), or not ours to remove.
    }
  }
  return removed;
}

/** Removes this process's own temporary files of `out`, synchronously (a process about to exit). */
export function removeOwnTempsSync(out: string): void {
  let names: string[];
  try {
    names = readdirSync(dirname(out));
  } catch {
    return;
  }
  for (const name of names) {
    if (pidOf(name, out) !== process.pid) continue;
    try {
      unlinkSync(join(dirname(out), name));
    } catch {
      // Already removed by the write's own cleanup.
    }
  }
}

/**
 * Opens a temporary file of `out` (flags as fs.open). A failure names `out` and its folder,
 * never the internal temporary name a user has never seen (`.x.beton.tmp-27292-…`); the
 * error keeps its errno code (ENOENT, EACCES, …) so callers still report it as such.
 */
export async function openTempFor(tmp: string, out: string, flags: string): Promise<FileHandle> {
  try {
    return await open(tmp, flags);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (typeof err.code !== 'string' || err.path !== tmp) throw e;
    const reason =
      err.code === 'ENOENT'
        ? `its folder ${dirname(out)} does not exist`
        : err.message.replace(/^[A-Z]+: /, '').replace(/, open '.*'$/, '');
    throw Object.assign(new Error(`${err.code}: cannot write ${out}: ${reason}`, { cause: e }), {
      code: err.code,
      errno: err.errno,
      syscall: err.syscall,
      path: out,
    });
  }
}
