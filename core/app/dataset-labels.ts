import { statSync } from 'node:fs';
import type { LabelSummary, ManifestView } from '../api/contract.js';
import { manifestPathFor, type DatasetManifest, type ManifestStatus } from '../api/dataset-manifest.js';
import type { Reader } from '../reader/reader.js';
import { readSidecarManifest } from '../reader/sidecar-manifest.js';
import { isRemoteUrl } from '../remote/url.js';
import { setOwn } from '../format/own-keys.js';

/** Beyond this many distinct values a field is an id, not a class: no histogram, no filter. */
export const MAX_CLASSES = 1000;

/**
 * The field the Dataset screen treats as the class: the manifest's (when the file has it as
 * an int field), else an int field named `label`. Null when there is none: a table's ints
 * may be anything, and a histogram of ids helps nobody.
 */
export function labelFieldOf(reader: Reader, manifest: DatasetManifest | null): string | null {
  const ints = reader.fields.filter((f) => f.field.type === 'int').map((f) => f.name);
  const named = manifest?.classNames?.field;
  if (named && ints.includes(named)) return named;
  return ints.includes('label') ? 'label' : null;
}

/** The label of sample `i` (IntField stores int64; class labels fit a double). */
export function labelOf(reader: Reader, i: number, f: number): number {
  return Number(reader.fieldMetadata(i, f).getBigInt64(0, true));
}

/** Samples per label value, named from the manifest where it has the names. Reads the metadata table only. */
export function labelSummary(reader: Reader, field: string, names: readonly string[] | null): LabelSummary {
  const f = reader.fieldIndex(field);
  const counts = new Map<number, number>();
  for (let i = 0; i < reader.numSamples; i++) {
    const v = labelOf(reader, i, f);
    counts.set(v, (counts.get(v) ?? 0) + 1);
    // Stop counting an id column early: its histogram is never shown.
    if (counts.size > MAX_CLASSES) return { field, distinct: counts.size, truncated: true, counts: [] };
  }
  const rows = [...counts.entries()].sort((a, b) => a[0] - b[0]);
  return {
    field,
    distinct: counts.size,
    truncated: false,
    counts: rows.map(([label, count]) => ({ label, count, name: names?.[label] ?? null })),
  };
}

/** Indices of the samples whose `field` equals `label`, in file order. */
export function samplesWithLabel(reader: Reader, field: string, label: number): number[] {
  const f = reader.fieldIndex(field);
  const out: number[] = [];
  for (let i = 0; i < reader.numSamples; i++) if (labelOf(reader, i, f) === label) out.push(i);
  return out;
}

/** Bytes each field of sample `i` keeps in the data pages (0 for fields stored in the record alone). */
export function storedBytes(reader: Reader, i: number): Record<string, number> {
  const out: Record<string, number> = {};
  reader.fields.forEach(({ name }, f) => setOwn(out, name, reader.heapRef(i, f)?.size ?? 0));
  return out;
}

/**
 * The manifest beside `path`, remembered while the file keeps its size and mtime: every page
 * of samples asks for the class names, and checking the manifest hashes the allocation table.
 */
const manifests = new Map<string, { key: string; status: ManifestStatus }>();
export function manifestOf(path: string): ManifestStatus {
  // A remote file's sidecar is not fetched (one more request per page of samples): class ids only.
  if (isRemoteUrl(path)) return { status: 'missing', path: manifestPathFor(path) };
  const st = statSync(path);
  const key = `${st.size}:${st.mtimeMs}:${st.ino}`;
  const hit = manifests.get(path);
  if (hit?.key === key) return hit.status;
  const status = readSidecarManifest(path);
  if (manifests.size > 64) manifests.clear();
  manifests.set(path, { key, status });
  return status;
}

export function manifestView(m: ManifestStatus): ManifestView {
  if (m.status !== 'ok') return { status: m.status, path: m.path, note: 'note' in m ? m.note : null, classNames: null, createdAt: null };
  const c = m.manifest.classNames;
  return {
    status: 'ok',
    path: m.path,
    note: null,
    classNames: c ? { field: c.field, names: c.names } : null,
    createdAt: m.manifest.createdAt,
  };
}

/** The manifest's names for `field`'s values, if it has them. */
export function classNamesFor(m: ManifestStatus, field: string | null): string[] | null {
  return m.status === 'ok' && field !== null && m.manifest.classNames?.field === field ? m.manifest.classNames.names : null;
}
