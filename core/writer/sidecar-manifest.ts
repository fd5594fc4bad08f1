import { unlink } from 'node:fs/promises';
import type { BuildConfig, FieldConfig } from '../api/build-config.js';
import type { BuildReport } from '../api/build-report.js';
import { MANIFEST_FORMAT, MANIFEST_VERSION, manifestPathFor, type DatasetManifest } from '../api/dataset-manifest.js';
import { datasetContentSha256 } from '../reader/content-hash.js';
import { replaceFile } from './replace-file.js';
import { setOwn } from '../format/own-keys.js';

export interface ManifestInput {
  config: BuildConfig;
  report: BuildReport;
  /** The label field's class names in label order (folder sources), or null. */
  classNames: { field: string; names: readonly string[]; from: string } | null;
  /** Per field, string → int mappings a table column was given (none yet: {}). */
  labelMappings?: Record<string, Record<string, number>>;
}

/** The manifest of a written .beton, its content hash read from the file itself. */
export function manifestFor(betonPath: string, input: ManifestInput): DatasetManifest {
  return {
    format: MANIFEST_FORMAT,
    version: MANIFEST_VERSION,
    beton: {
      file: betonPath,
      contentSha256: datasetContentSha256(betonPath),
      fileSize: input.report.fileSize,
      numSamples: input.report.numSamples,
    },
    classNames: input.classNames
      ? { field: input.classNames.field, names: [...input.classNames.names], from: input.classNames.from }
      : null,
    labelMappings: input.labelMappings ?? {},
    build: input.config,
    report: input.report,
    writtenBy: 'beton-studio',
    createdAt: new Date().toISOString(),
  };
}

/**
 * Writes `OUT.beton.manifest.json` once OUT.beton is in place: a temp file renamed over the
 * name (replaceFile), so a reader sees the old manifest or the new one, never half. If it
 * cannot be written the .beton is removed too and the error goes on: a build either leaves
 * both or neither, and a .beton left without its manifest would show the old one's class
 * names had an older build left one there (the content hash would catch it, but only as a note).
 */
export async function writeSidecarManifest(betonPath: string, input: ManifestInput): Promise<string> {
  const path = manifestPathFor(betonPath);
  try {
    await replaceFile(path, JSON.stringify(manifestFor(betonPath, input), null, 2) + '\n');
  } catch (e) {
    await unlink(betonPath).catch(() => undefined);
    throw e;
  }
  return path;
}

/**
 * The class names of a build: the source's (class folders) for the int field that carries
 * its `label` column, when the build writes one; else the categories of a string column
 * mapped to an int label (category → int: the names are the categories in index order).
 */
export function classNamesOf(
  source: { kind: string; classNames?(): readonly string[] | null },
  fields: readonly FieldConfig[],
): ManifestInput['classNames'] {
  const names = source.classNames?.() ?? null;
  if (names) {
    const field = fields.find(
      (f) => f.type === 'int' && (f.columns ? f.columns.length === 1 && f.columns[0] === 'label' : f.name === 'label'),
    );
    if (field) return { field: field.name, names, from: source.kind };
  }
  const mapped = fields.filter((f) => f.type === 'int' && f.categories !== undefined);
  const field = mapped.find((f) => f.name === 'label') ?? mapped[0];
  return field?.type === 'int' && field.categories ? { field: field.name, names: [...field.categories], from: 'categories' } : null;
}

/** Every category → int mapping the build applied, by field: { label: { bird: 0, cat: 1 } }. */
export function labelMappingsOf(fields: readonly FieldConfig[]): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const f of fields) if (f.type === 'int' && f.categories) setOwn(out, f.name, Object.fromEntries(f.categories.map((c, i) => [c, i])));
  return out;
}
