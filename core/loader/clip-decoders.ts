import { clipStats, type ClipStats } from '../fields/video-clip-decoders.js';
import type { Reader } from '../reader/reader.js';
import { fieldTable } from './decoders.js';

export type { ClipStats } from '../fields/video-clip-decoders.js';

/** Scans the metadata of field `f` (no heap reads): clip lengths and frame sizes. */
export function clipFieldStats(reader: Reader, f: number): ClipStats {
  return clipStats(fieldTable(reader, f));
}

/** The clip geometry recorded in a file, for giving ClipSimpleDecoder explicit `frames`/`size`. */
export function clipGeometry(reader: Reader, fieldName: string): ClipStats {
  return clipFieldStats(reader, reader.fieldIndex(fieldName));
}
