/**
 * What `beton inspect` reports about a .beton file (core/reader/inspect.ts computes it);
 * the contract's InspectResult is a view of it.
 */
export interface FieldSummary {
  index: number;
  name: string;
  typeId: number;
  type: string;
  ffcvClass: string;
  /** Options the file stores (ndarray dtype/shape); image writer options are not stored. */
  arguments: Record<string, unknown>;
  metadataOffset: number;
  metadataSize: number;
  heapBytes: number;
  imageModes?: { raw: number; jpg: number };
}

export interface Region {
  name: string;
  offset: number;
  size: number;
  sha256?: string;
}

export interface DatasetSummary {
  path: string;
  fileSize: number;
  version: number;
  numSamples: number;
  pageSize: number;
  numPages: number;
  recordSize: number;
  allocations: number;
  fields: FieldSummary[];
  regions: Region[];
}
