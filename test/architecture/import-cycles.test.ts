/**
 * No import cycles between core's files (issue 11.3), neither in what runs nor through
 * `import type` (issue 23), with no exception (issue 32: core/loader/orders/ was one, its
 * registry and strategies importing each other; the shapes now sit below both in types.ts). A cycle means two modules are one unit that was cut in two, or a
 * shared piece that belongs below both; a type-only cycle is the same knot, only erased at
 * run time (the transforms' stages and pipeline/spec.ts were one, 18 files long).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { folderGraph, importCycles, importGraph, runtimeImports } from './import-graph.js';

const CORE = join(import.meta.dirname, '../../core');

describe('import graph', () => {
  it('finds a cycle when there is one, and none in a tree', () => {
    const cyclic = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts', 'd.ts']],
      ['d.ts', []],
    ]);
    expect(importCycles(cyclic)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
    expect(
      importCycles(
        new Map([
          ['a.ts', ['b.ts', 'c.ts']],
          ['b.ts', ['c.ts']],
          ['c.ts', []],
        ]),
      ),
    ).toEqual([]);
  });

  it('folds files into their top-level folders', () => {
    const files = new Map([
      ['a/x.ts', ['a/y.ts', 'b/z.ts']],
      ['a/y.ts', []],
      ['b/z.ts', ['a/y.ts']],
      ['index.ts', ['a/x.ts']],
    ]);
    const folders = folderGraph(files);
    expect(Object.fromEntries(folders)).toEqual({ a: ['b'], b: ['a'], '.': ['a'] });
    expect(importCycles(folders)).toEqual([['a', 'b']]);
  });

  it('counts what runs: imports, re-exports, import(), inline type imports; not `import type`', () => {
    const text = [
      "import { a } from './a.js';",
      "import type { B } from './b.js';",
      "import { type C } from './c.js';",
      "export { d } from './d.js';",
      "export type { E } from './e.js';",
      "const f = await import('./f.js');",
      "import { readFileSync } from 'node:fs';",
    ].join('\n');
    expect(runtimeImports(text)).toEqual(['./a.js', './c.js', './d.js', './f.js']);
    expect(runtimeImports(text, true)).toEqual(['./a.js', './b.js', './c.js', './d.js', './e.js', './f.js']);
  });

  it('core has no import cycle', () => {
    const graph = importGraph(CORE);
    expect(graph.size).toBeGreaterThan(100);
    expect(importCycles(graph)).toEqual([]);
  });

  it('core has no cycle through type imports either', () => {
    // Before issue 23: pipeline/spec.ts -> ops/index.ts -> ops/<op>.ts -> sample-ops.ts and
    // batch-ops.ts -> spec.ts (18 files), and api/contract.ts <-> api/sample-detail.ts.
    // Before issue 32: loader/orders/order.ts (interfaces + registry) <-> the strategies.
    const graph = importGraph(CORE, true);
    expect(graph.size).toBeGreaterThan(100);
    expect(importCycles(graph)).toEqual([]);
  });

  it("core's folders import each other in one direction (type imports included)", () => {
    // Before issue 11.3: writer <-> sources (writer/build.ts opened sources, sources took
    // Sample from writer/encode-sample.ts).
    expect(importCycles(folderGraph(importGraph(CORE, true)))).toEqual([]);
  });
});
