/**
 * Named errors with stable codes. Codes are part of the public API: tools and the
 * CLI match on `code`, never on message text.
 */
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
export class BetonFormatError extends Error {
  override readonly name = 'BetonFormatError';
  constructor(
    readonly code: BetonErrorCode,
    message: string,
    readonly details: { file?: string; offset?: number; sample?: number } = {},
  ) {
    super(message);
  }
}

export type EncodeErrorCode =
  | 'BAD_VALUE'
  | 'BAD_SCHEMA'
  | 'SAMPLE_TOO_LARGE'
  | 'OBJECT_TOO_LARGE'
  | 'BAD_OPTIONS';

/** A value, schema or option given to the writer cannot be encoded. */
export class BetonEncodeError extends Error {
  override readonly name = 'BetonEncodeError';
  constructor(
    readonly code: EncodeErrorCode,
    message: string,
    readonly details: { field?: string; sample?: number; source?: string } = {},
  ) {
    super(message);
  }
}
