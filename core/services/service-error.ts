/** An error a service reports to the client as `{ code, message }`. */
export class ServiceError extends Error {
  override readonly name = 'ServiceError';
  constructor(
    readonly code: 'BAD_REQUEST' | 'NOT_FOUND' | 'FORBIDDEN' | 'EXEC_DISABLED' | 'UNKNOWN_JOB' | 'FAILED',
    message: string,
  ) {
    super(message);
  }
}
