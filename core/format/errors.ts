/**
 * Named errors with stable codes. Codes are part of the public API: tools, the CLI and the
 * app match on `code`, never on message text.
 *
 * Every error beton raises on purpose extends BetonError, so one handler (the CLI's, the
 * service's) can show `[CODE] message` and what to do, without a stack trace. Errors that
 * come from Node or a library (ENOSPC, a SqliteError, a failed buffer allocation) become
 * one through `asBetonError`; whatever is left is a bug.
 */
export class BetonError<C extends string = string> extends Error {
  override readonly name: string = 'BetonError';
  readonly code: C;
  /** What to do about it, when the message does not say (printed on its own line). */
  readonly hint: string | null;

  constructor(code: C, message: string, options: { cause?: unknown; hint?: string | null } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.hint = options.hint ?? null;
  }
}

/**
 * Work stopped by a signal (Ctrl-C, SIGTERM, SIGHUP): not a fault of the inputs. The CLI
 * exits with 128 + the signal's number, as a shell reports a killed command.
 */
export class InterruptedError extends BetonError<'INTERRUPTED'> {
  override readonly name: string = 'InterruptedError';
  constructor(
    /** 'SIGINT', 'SIGTERM', … (a plain string: this pure layer carries no Node types, the renderer type-checks it). */
    readonly signal: string,
    message: string,
  ) {
    super('INTERRUPTED', message);
  }
}

export type BetonErrorCode =
  | 'TRUNCATED'
  | 'BAD_VERSION'
  | 'BAD_HEADER'
  | 'BAD_PAGE_SIZE'
  | 'BAD_FIELD'
  | 'UNKNOWN_FIELD_TYPE'
  | 'DUPLICATE_FIELD'
  | 'BAD_POINTER'
  | 'BAD_ALLOC_TABLE'
  | 'SAMPLE_OUT_OF_RANGE'
  | 'CORRUPT_DATA';

/** The file is not a valid .beton file (or not one we can read). */
export class BetonFormatError extends BetonError<BetonErrorCode> {
  override readonly name: string = 'BetonFormatError';
  constructor(
    code: BetonErrorCode,
    message: string,
    readonly details: { file?: string; offset?: number; sample?: number } = {},
    hint = 'Check that the file is a complete .beton file (FFCV format version 2); rebuild it if it was cut short.',
  ) {
    super(code, message, { hint });
  }
}

export type EncodeErrorCode =
  | 'BAD_VALUE'
  | 'BAD_SCHEMA'
  | 'SAMPLE_TOO_LARGE'
  | 'OBJECT_TOO_LARGE'
  | 'BAD_OPTIONS'
  /** The output exists and replacing it was not asked for (--force / overwrite). */
  | 'OUTPUT_EXISTS'
  /** The output is, or would be read as, one of the build's inputs. */
  | 'OUTPUT_IS_INPUT';

/** A value, schema or option given to the writer cannot be encoded. */
export class BetonEncodeError extends BetonError<EncodeErrorCode> {
  override readonly name: string = 'BetonEncodeError';
  constructor(
    code: EncodeErrorCode,
    message: string,
    readonly details: { field?: string; sample?: number; source?: string } = {},
  ) {
    super(code, message);
  }
}

/**
 * Options that do not go together, or one missing that another needs (a stride without a
 * clip length, a folder of videos without one, an invalid build config): what the user
 * asked for, not the data, is wrong. The CLI prints it as a usage error (exit 2); the
 * service answers BAD_OPTIONS.
 */
export class OptionsError extends BetonEncodeError {
  override readonly name: string = 'OptionsError';
  constructor(message: string, details: { source?: string } = {}) {
    super('BAD_OPTIONS', message, details);
  }
}

// ---------------------------------------------------------------------------
// Errors from outside beton, as BetonErrors
// ---------------------------------------------------------------------------

/** What to do about a system error, by errno code. The message already names the path. */
const SYSTEM_HINTS: Record<string, string> = {
  ENOENT: 'Check the path: nothing exists there.',
  EACCES: 'Check the permissions of the file and its folders (ls -l), or use another path.',
  EPERM: 'The system does not allow this operation on that path; check its permissions or use another path.',
  EISDIR: 'That path is a folder; give a file.',
  ENOTDIR: 'A part of that path is a file, not a folder; check the path.',
  ENOSPC: 'The disk is full: free some space (df -h shows it) or write to another disk.',
  EDQUOT: 'Your disk quota is used up: free some space or write to another disk.',
  EROFS: 'That file system is read-only; write to another folder.',
  EEXIST: 'Something already exists at that path; remove it or use another path.',
  ENAMETOOLONG: 'The path or one of its names is too long; use a shorter path.',
  ELOOP: 'The path goes through a symbolic link loop; fix the link or use another path.',
  EMFILE: 'Too many open files for this process: raise the limit (ulimit -n) or use fewer --workers.',
  ENFILE: 'Too many open files on this system: close other programs or raise the limit.',
  EIO: 'The disk (or network file system) reported an I/O error; check it (dmesg) and try again.',
  ENXIO: 'The device behind that path is not there; check the path.',
  EBUSY: 'The file or device is busy; try again when it is free.',
  ETXTBSY: 'The file is busy (a program is running from it); try again when it is free.',
  ENOMEM: 'The system is out of memory: close other programs or use smaller settings.',
  EADDRINUSE: 'Another program is listening on that port: stop it, or pass --port N (--port 0 takes any free port).',
  EADDRNOTAVAIL: "That address is not one of this machine's; pass --host 127.0.0.1 (or an address of this machine).",
  EAFNOSUPPORT: 'This machine does not support that address family; pass --host 127.0.0.1.',
  ECONNREFUSED: 'Nothing is listening there; check the host and port.',
  EPIPE: 'The reader at the other end of the pipe went away.',
};

/** A Node system error (errno code + syscall), e.g. ENOENT from open or EADDRINUSE from listen. */
interface SystemError extends Error {
  code: string;
  syscall?: string;
  errno?: number;
}
function isSystemError(e: unknown): e is SystemError {
  if (!(e instanceof Error)) return false;
  const x = e as Partial<SystemError>;
  return typeof x.code === 'string' && /^E[A-Z0-9]+$/.test(x.code) && (typeof x.syscall === 'string' || typeof x.errno === 'number');
}

/** The allocation failures V8 reports as RangeError ("Array buffer allocation failed", …). */
const OUT_OF_MEMORY = /allocation failed|invalid (typed )?array length|invalid string length|array buffer|out of memory|memory allocation/i;

/**
 * The BetonError for `e`: itself; a Node system error as `[ENOSPC] …` with a hint; a
 * SqliteError with its SQLITE_* code; a failed allocation as OUT_OF_MEMORY. Null for
 * anything else (a bug: callers show it as such).
 */
export function asBetonError(e: unknown): BetonError | null {
  if (e instanceof BetonError) return e;
  if (!(e instanceof Error)) return null;
  const code = (e as { code?: unknown }).code;
  if (isSystemError(e)) {
    // The code is shown apart: "ENOENT: no such file or directory, open '/x'" → "no such
    // file or directory, open '/x'"; "listen EADDRINUSE: address …" → "address … (listen)".
    const m = e.message;
    const lead = `${e.syscall ?? ''} ${e.code}: `;
    const message = m.startsWith(`${e.code}: `)
      ? m.slice(e.code.length + 2)
      : e.syscall && m.startsWith(lead)
        ? `${m.slice(lead.length)} (${e.syscall})`
        : m;
    return new BetonError(e.code, message, { cause: e, hint: SYSTEM_HINTS[e.code] ?? null });
  }
  if (e.name === 'SqliteError' && typeof code === 'string' && code.startsWith('SQLITE_')) {
    return new BetonError(code, e.message, { cause: e, hint: sqliteHint(code) });
  }
  if (code === 'ERR_MEMORY_ALLOCATION_FAILED' || (e instanceof RangeError && OUT_OF_MEMORY.test(e.message))) {
    return new BetonError('OUT_OF_MEMORY', `out of memory (${e.message})`, {
      cause: e,
      hint: 'Use smaller settings (batch size, output size, workers).',
    });
  }
  return null;
}

function sqliteHint(code: string): string | null {
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) {
    return 'The runs database is damaged or is not a runs database: move the file aside (a new one is made), or pass --db PATH.';
  }
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))
    return 'Another process holds the runs database; try again when it is done.';
  if (code.startsWith('SQLITE_FULL')) return 'The disk is full: free some space.';
  if (code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_CANTOPEN') || code.startsWith('SQLITE_PERM')) {
    return 'The runs database cannot be written there: check its permissions, or pass --db PATH.';
  }
  return null;
}

/**
 * An input path that is not a regular file (a named pipe, a socket, a device, a folder
 * where a file is expected): refused before a byte is read, because reading a FIFO waits
 * for a writer forever and would hang the CLI or a server's thread pool.
 */
export class NotAFileError extends BetonError<'NOT_A_FILE'> {
  override readonly name: string = 'NotAFileError';
  constructor(
    readonly path: string,
    readonly kind: string,
    what = 'input',
  ) {
    super('NOT_A_FILE', `${path} is ${kind}, not a regular file; give a regular file as the ${what}`);
  }
}
