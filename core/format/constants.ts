/** FFCV on-disk format version 2 constants (docs/spec/beton-format.md). */
export const FORMAT_VERSION = 2;
export const HEADER_SIZE = 24;
export const FIELD_NAME_SIZE = 16;
export const FIELD_ARGS_SIZE = 1024;
/** type_id (1) + name (16) + arguments (1024), byte-packed. */
export const FIELD_DESCRIPTOR_SIZE = 1 + FIELD_NAME_SIZE + FIELD_ARGS_SIZE;
export const ALLOC_ENTRY_SIZE = 24;
export const DEFAULT_PAGE_SIZE = 8 * 1024 * 1024;
/** FFCV's writer refuses smaller pages; its reader (and ours) accepts any power of two. */
export const MIN_WRITER_PAGE_SIZE = 2 * 1024 * 1024;
/** Smallest page a reader accepts: below this a file is almost surely garbage. */
export const MIN_READER_PAGE_SIZE = 512;
export const MAX_PAGE_SIZE = 2 ** 31;
