import { BetonError } from '../format/errors.js';

export type RunsDbErrorCode =
  /** An argument failed validation (bad id, malformed run, non-finite number...). */
  | 'INVALID_INPUT'
  /** The run (or build, dataset) asked for is not in the database. */
  | 'NOT_FOUND'
  /** The file was written by a newer beton-studio (its schema version is ahead of ours). */
  | 'NEWER_SCHEMA'
  /** Stored JSON that does not parse: the file was edited or damaged. */
  | 'CORRUPT';

/** Errors of the runs database, with a stable code. */
export class RunsDbError extends BetonError<RunsDbErrorCode> {
  override readonly name: string = 'RunsDbError';
  constructor(code: RunsDbErrorCode, message: string, options: { hint?: string; cause?: unknown } = {}) {
    super(code, message, options);
  }
}
