import type { Reader } from '../../reader/reader.js';

/**
 * The file-absolute pages holding a sample's heap objects of the given fields: what the
 * process cache loads for a batch, and what page-aware orders group samples by.
 */
export function pagesOfFields(reader: Reader, fields: readonly number[]): (sampleId: number) => number[] {
  const pageSize = reader.pageSize;
  return (id) => {
    const pages = new Set<number>();
    for (const f of fields) {
      const ref = reader.heapRef(id, f);
      if (ref && ref.size > 0) pages.add(Math.floor(ref.ptr / pageSize));
    }
    return [...pages];
  };
}
