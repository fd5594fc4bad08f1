import { resolve } from 'node:path';
import type { DatasetInfo } from '../../api/profile-model.js';
import { readerHashes } from '../../reader/content-hash.js';
import { Reader } from '../../reader/reader.js';

/**
 * What a run records of its dataset, from an open Reader (local or remote): its size, the
 * header and content hashes (reader/content-hash.ts, the one recipe), sample count, schema
 * and, for a local file, how its images are stored. A remote file's open fetched the tables,
 * so no data page is read.
 */
export function datasetInfoOf(reader: Reader): DatasetInfo {
  const { headerSha256, contentSha256 } = readerHashes(reader);
  return {
    path: reader.remote ? reader.path : resolve(reader.path),
    sizeBytes: reader.fileSize,
    headerSha256,
    contentSha256,
    numSamples: reader.numSamples,
    schema: reader.fields.map(({ name, field }) => ({ name, type: field.type, typeId: field.typeId })),
    // As before the Reader was shared: a remote file's runs record no image modes.
    ...(reader.remote ? {} : storedImages(reader)),
  };
}

/** datasetInfoOf a local file, opened for it. */
export function datasetInfo(file: string): DatasetInfo {
  const reader = Reader.openSync(file);
  try {
    return datasetInfoOf(reader);
  } finally {
    reader.close();
  }
}

/**
 * The dataset a training command reads, when it names a .beton we can open; null otherwise
 * (any file may be named: a command run is recorded either way, just without a dataset).
 */
export function tryDatasetInfo(file: string): DatasetInfo | null {
  try {
    return datasetInfo(file);
  } catch {
    return null;
  }
}

/** How the image fields store their samples (the fields say: imageMode, imageSize), summed over them. */
function storedImages(reader: Reader): { images?: { raw: number; jpg: number; maxSide: number } } {
  const fields = reader.fields.flatMap(({ field }, f) => (field.imageMode && field.imageSize ? [{ field, f }] : []));
  if (fields.length === 0) return {};
  const images = { raw: 0, jpg: 0, maxSide: 0 };
  for (let i = 0; i < reader.numSamples; i++) {
    for (const { field, f } of fields) {
      const m = reader.fieldMetadata(i, f);
      images[field.imageMode!(m)]++;
      const { width, height } = field.imageSize!(m);
      images.maxSide = Math.max(images.maxSide, width, height);
    }
  }
  return { images };
}
