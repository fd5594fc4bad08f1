/** Bad command-line usage: exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
