import { BetonError } from '../format/errors.js';

/** Bad command-line usage: exit code 2, the message followed by where the options are. */
export class UsageError extends BetonError<'USAGE' | 'BAD_VALUE'> {
  override readonly name: string = 'UsageError';
  /** BAD_VALUE: a flag's value that is not one (flags/bad-value.ts, the one wording); USAGE: anything else. */
  constructor(message: string, code: 'USAGE' | 'BAD_VALUE' = 'USAGE') {
    super(code, message);
  }
}
