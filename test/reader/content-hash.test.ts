/**
 * The dataset hashes (core/reader/content-hash.ts): one recipe, read through a file
 * descriptor or through an open Reader. Stored runs and sidecar manifests compare these
 * values with what a later run computes, so they must never change: the expected digests
 * below were computed before the two implementations became one (the sweep had its own).
 */
import { describe, expect, it } from 'vitest';
import { datasetContentSha256, readerHashes } from '../../core/reader/content-hash.js';
import { Reader } from '../../core/reader/reader.js';
import { datasetInfo } from '../../core/profile/sweep/dataset-info.js';
import { fixturePath } from '../helpers/fixtures.js';

const STORED = {
  // An image file: header + field table, then its allocation table.
  images_jpg: {
    headerSha256: 'ba8b7c20b0c60927f8b4a63551c6bf1a6547a7721c06ae1e689f8a1498a8e547',
    contentSha256: 'ede8fc444c2e1da1d555c4983ebdcaba3de0d38e9d8101741a087aae2070c997',
  },
  bytes_json: {
    headerSha256: 'ac80523d39974558bafe8caa31b4e030971f6a82f3613bd473d816efe1e2fe17',
    contentSha256: 'afbbcdcb9d8d399389a1a4738b50d50e4db42132783d8fe9f479d91aadef3bb1',
  },
  // Metadata only: no heap object, an empty allocation table, so both hashes are the same.
  ints_floats: {
    headerSha256: 'b4a3545b27b2f6539f209ce804363a8f9772515ec7c3c0a81b20fdf4b84a9bfe',
    contentSha256: 'b4a3545b27b2f6539f209ce804363a8f9772515ec7c3c0a81b20fdf4b84a9bfe',
  },
} as const;

describe('dataset hashes', () => {
  it.each(Object.entries(STORED))('%s: the stored values, from the file and from an open Reader', (name, stored) => {
    const file = fixturePath(name);
    expect(datasetContentSha256(file)).toBe(stored.contentSha256);
    const reader = Reader.openSync(file);
    try {
      expect(readerHashes(reader)).toEqual(stored);
    } finally {
      reader.close();
    }
    const info = datasetInfo(file);
    expect({ headerSha256: info.headerSha256, contentSha256: info.contentSha256 }).toEqual(stored);
  });
});
