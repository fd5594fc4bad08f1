import { createHash } from 'node:crypto';
import { FIELD_DESCRIPTOR_SIZE, HEADER_SIZE } from '../format/constants.js';
import type { DatasetSummary, FieldSummary, Region } from '../api/dataset-summary.js';
import type { Reader } from './reader.js';

export type { DatasetSummary, FieldSummary, Region };

/** Everything `beton inspect` prints, computed from metadata and the allocation table only. */
export function summarize(reader: Reader, opts: { hashRegions?: boolean } = {}): DatasetSummary {
  const fields: FieldSummary[] = reader.fields.map(({ name, field }, f) => {
    const spec = field.toSpec();
    const args: Record<string, unknown> = {};
    if ('dtype' in spec) args.dtype = spec.dtype;
    if ('shape' in spec) args.shape = spec.shape;
    let heapBytes = 0;
    // Fields that store images say how each sample is stored (the byte layout is theirs).
    const modes = field.imageMode ? { raw: 0, jpg: 0 } : undefined;
    for (let i = 0; i < reader.numSamples; i++) {
      const ref = reader.heapRef(i, f);
      if (ref) heapBytes += ref.size;
      if (modes) modes[field.imageMode!(reader.fieldMetadata(i, f))]++;
    }
    return {
      index: f,
      name,
      typeId: field.typeId,
      type: field.type,
      ffcvClass: field.ffcvClass,
      arguments: args,
      metadataOffset: reader.recordLayout.offsets[f]!,
      metadataSize: field.metadata.size,
      heapBytes,
      ...(modes ? { imageModes: modes } : {}),
    };
  });
  return {
    path: reader.path,
    fileSize: reader.fileSize,
    version: reader.header.version,
    numSamples: reader.numSamples,
    pageSize: reader.pageSize,
    numPages: reader.numPages,
    recordSize: reader.recordLayout.size,
    allocations: reader.allocations.length,
    fields,
    regions: fileRegions(reader, opts.hashRegions ?? false),
  };
}

/** The byte regions of the file, as the golden manifests list them. */
export function fileRegions(reader: Reader, hash: boolean): Region[] {
  const r = reader.regions;
  const T = reader.header.allocTablePtr;
  const list: Region[] = [
    { name: 'header', offset: 0, size: HEADER_SIZE },
    { name: 'field_table', offset: HEADER_SIZE, size: FIELD_DESCRIPTOR_SIZE * reader.fields.length },
    { name: 'metadata', offset: r.metadata.offset, size: r.metadata.size },
  ];
  if (reader.numPages > 0) {
    list.push({ name: 'padding', offset: r.metadataEnd, size: r.dataStart - r.metadataEnd });
    list.push({ name: 'data_pages', offset: r.dataStart, size: T - r.dataStart });
  }
  list.push({ name: 'alloc_table', offset: T, size: reader.fileSize - T });
  if (hash) {
    // Through the reader's byte source: a local file, or ranged GETs of a remote one.
    for (const reg of list) {
      const h = createHash('sha256');
      for (let done = 0; done < reg.size;) {
        const buf = reader.readRaw(reg.offset + done, Math.min(1 << 20, reg.size - done));
        if (buf.byteLength <= 0) break;
        h.update(buf);
        done += buf.byteLength;
      }
      reg.sha256 = h.digest('hex');
    }
  }
  return list;
}
