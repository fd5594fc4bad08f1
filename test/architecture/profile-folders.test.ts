/**
 * core/profile/ is grouped by what each part does (issue 32): `sampling/` (what the machine
 * and a process do, every ~250 ms), `exec/` (running commands: the user's training command,
 * its protocol and probe, short captured commands), `engines/` (what measures one grid
 * point: our loader's bench, the Python engines, the point result they share), `verdict/`
 * (pure: what bounds the loader, the answer and its actions) and `sweep/` (the grid run
 * that drives them all). The sub-folders import each other in one direction (type imports
 * included), each folder only what sits below it. Why this grouping: docs/architecture.md.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { folderGraph, importCycles, importGraph } from './import-graph.js';

const PROFILE = join(import.meta.dirname, '../../core/profile');

describe('core/profile sub-folders', () => {
  const files = importGraph(PROFILE, true);
  const folders = folderGraph(files);

  it('hold every file (none left at the top) and import each other in one direction', () => {
    expect(files.size).toBeGreaterThan(30);
    expect([...files.keys()].filter((f) => !f.includes('/'))).toEqual([]);
    expect(importCycles(folders)).toEqual([]);
  });

  it('sampling < exec < engines < verdict < sweep', () => {
    const sorted = Object.fromEntries([...folders].map(([f, t]) => [f, [...t].sort()]));
    expect(sorted).toEqual({
      sampling: [],
      exec: ['sampling'],
      engines: ['exec'],
      verdict: ['engines'],
      sweep: ['engines', 'sampling', 'verdict'],
    });
  });
});
