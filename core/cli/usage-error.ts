import { BetonError } from '../format/errors.js';

/** Bad command-line usage: exit code 2, the message followed by the command's help. */
export class UsageError extends BetonError<'USAGE'> {
  override readonly name: string = 'UsageError';
  constructor(message: string) {
    super('USAGE', message);
  }
}
