/**
 * What a .beton file holds, from its metadata and allocation table only: `beton inspect`
 * prints the summary, the app's Dataset screen shows its view with a page map.
 */
import type { InspectResult } from '../api/contract.js';
import type { DatasetSummary } from '../api/dataset-summary.js';
import { summarize } from '../reader/inspect.js';
import { Reader } from '../reader/reader.js';
import { buildSkips } from './build-skips.js';
import { classNamesFor, labelFieldOf, labelSummary, manifestOf, manifestView } from './dataset-labels.js';

/** The file's summary (`beton inspect --json`); `hashRegions` adds each region's sha256 (reads them). */
export async function summarizeDataset(path: string, opts: { hashRegions?: boolean } = {}): Promise<DatasetSummary> {
  const reader = await Reader.open(path);
  try {
    return summarize(reader, { hashRegions: opts.hashRegions ?? false });
  } finally {
    reader.close();
  }
}

/** Header, fields, regions and the page map of a .beton file (metadata and allocation table only). */
export async function inspectDataset(path: string): Promise<InspectResult> {
  const reader = await Reader.open(path);
  try {
    const s = summarize(reader);
    const manifest = manifestOf(reader.path);
    const labelField = labelFieldOf(reader, manifest.status === 'ok' ? manifest.manifest : null);
    const pages = new Map<number, [number, number, number]>();
    for (const a of reader.allocations) {
      if (a.size === 0) continue;
      const p = Math.floor(a.ptr / reader.pageSize);
      const cur = pages.get(p);
      if (cur) pages.set(p, [Math.min(cur[0], a.sampleId), Math.max(cur[1], a.sampleId), cur[2] + a.size]);
      else pages.set(p, [a.sampleId, a.sampleId, a.size]);
    }
    return {
      path: s.path,
      fileSize: s.fileSize,
      version: s.version,
      numSamples: s.numSamples,
      pageSize: s.pageSize,
      numPages: s.numPages,
      recordSize: s.recordSize,
      fields: s.fields.map((f) => ({
        name: f.name,
        type: f.type,
        ffcvClass: f.ffcvClass,
        typeId: f.typeId,
        arguments: f.arguments,
        heapBytes: f.heapBytes,
        ...(f.imageModes ? { imageModes: f.imageModes } : {}),
      })),
      regions: s.regions.map(({ name, offset, size }) => ({ name, offset, size })),
      pageMap: [...pages.entries()].sort((a, b) => a[0] - b[0]).map(([p, [lo, hi, used]]) => [p, lo, hi, used]),
      manifest: manifestView(manifest),
      labels: labelField ? labelSummary(reader, labelField, classNamesFor(manifest, labelField)) : null,
      skipped: buildSkips(reader.path, s.numSamples),
    };
  } finally {
    reader.close();
  }
}
