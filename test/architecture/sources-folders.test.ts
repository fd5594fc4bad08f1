/**
 * core/sources/ is grouped by format (issue 32): one sub-folder per kind of source and
 * `common/` for what they share, with `open-source.ts` alone at the top as the entry. The
 * sub-folders import each other in one direction (type imports included), so a folder
 * reads on its own: a format depends on `common/` and on the table model, never on a
 * format that depends on it. Why this grouping: docs/architecture.md (sources row).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { folderGraph, importCycles, importGraph } from './import-graph.js';

const SOURCES = join(import.meta.dirname, '../../core/sources');

describe('core/sources sub-folders', () => {
  const files = importGraph(SOURCES, true);
  const folders = folderGraph(files);

  it('import each other in one direction', () => {
    expect(files.size).toBeGreaterThan(30);
    expect(importCycles(folders)).toEqual([]);
  });

  it('have open-source.ts alone at the top, imported by no sub-folder', () => {
    expect([...files.keys()].filter((f) => !f.includes('/'))).toEqual(['open-source.ts']);
    for (const [folder, targets] of folders) expect(folder === '.' || !targets.includes('.'), folder).toBe(true);
  });

  it('keep common/ below every format, and each format below the entry only', () => {
    const sorted = Object.fromEntries([...folders].map(([f, t]) => [f, [...t].sort()]));
    expect(sorted).toEqual({
      '.': ['common', 'images', 'tables', 'video', 'webdataset'],
      common: [],
      images: ['common', 'tables'],
      npy: ['common'],
      parquet: ['common'],
      tables: ['common', 'npy', 'parquet'],
      video: ['common'],
      webdataset: ['common', 'npy', 'tables'],
    });
  });
});
