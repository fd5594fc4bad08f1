/**
 * `beton dump`: a .beton as one canonical document {header, fields, samples}, in the
 * encoding of the golden manifests (test/fixtures/ffcv/README.md), so two implementations
 * can be compared with a diff. Samples come one at a time: a large file is never one string.
 */
import { canonicalSample } from '../reader/canonical.js';
import { summarize } from '../reader/inspect.js';
import { Reader } from '../reader/reader.js';

export interface DatasetDump {
  numSamples: number;
  /** The header and the fields, as the manifests name them. */
  head: { header: Record<string, number>; fields: Array<{ name: string; type_id: number; type: string; arguments: unknown }> };
  /** Samples a (inclusive) to b (exclusive) in canonical form; a remote file's pages fetched 256 samples ahead. */
  samples(a: number, b: number): AsyncGenerator<unknown>;
  close(): void;
}

/** Opens `path` (a file or a URL) for dumping; close() when done. */
export async function openDump(path: string): Promise<DatasetDump> {
  const reader = await Reader.open(path);
  const s = summarize(reader);
  return {
    numSamples: reader.numSamples,
    head: {
      header: {
        version: s.version,
        num_fields: s.fields.length,
        page_size: s.pageSize,
        num_samples: s.numSamples,
        alloc_table_ptr: reader.header.allocTablePtr,
      },
      fields: s.fields.map((f) => ({ name: f.name, type_id: f.typeId, type: f.ffcvClass, arguments: f.arguments })),
    },
    async *samples(a: number, b: number) {
      for (let i = a; i < b; i++) {
        // A remote file: the next samples' pages in parallel GETs (a local file: nothing).
        if ((i - a) % 256 === 0) await reader.prefetch(Array.from({ length: Math.min(256, b - i) }, (_, k) => i + k));
        yield canonicalSample(reader, i);
      }
    },
    close: () => reader.close(),
  };
}
