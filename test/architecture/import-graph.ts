/**
 * core's file-level import graph, as the emitted JavaScript has it: `import type` and
 * `export type` are left out (erased), every other import, re-export and import() counts
 * (with verbatimModuleSyntax, `import { type A } from` stays as a side-effect import).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export type ImportGraph = Map<string, string[]>;

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return tsFiles(p);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

function resolveSpecifier(from: string, spec: string): string | null {
  const base = resolve(dirname(from), spec);
  for (const c of [base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx'), `${base}.ts`, join(base, 'index.ts')])
    if (existsSync(c)) return c;
  return null;
}

/** The relative imports of one source text that run (or, withTypes, all of them). */
export function runtimeImports(text: string, withTypes = false): string[] {
  const sf = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, false);
  const out: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isImportDeclaration(n) && (withTypes || !n.importClause?.isTypeOnly) && ts.isStringLiteral(n.moduleSpecifier))
      out.push(n.moduleSpecifier.text);
    else if (ts.isExportDeclaration(n) && (withTypes || !n.isTypeOnly) && n.moduleSpecifier && ts.isStringLiteral(n.moduleSpecifier))
      out.push(n.moduleSpecifier.text);
    else if (
      ts.isCallExpression(n) &&
      n.expression.kind === ts.SyntaxKind.ImportKeyword &&
      n.arguments[0] &&
      ts.isStringLiteral(n.arguments[0])
    )
      out.push(n.arguments[0].text);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out.filter((s) => s.startsWith('.'));
}

/** Graphs already built in this process (the architecture tests ask for the same few several times; a parse of core is ~1 s). */
const built = new Map<string, ImportGraph>();

/** Files under `root`, named relative to it, with the files they import. */
export function importGraph(root: string, withTypes = false): ImportGraph {
  const key = `${withTypes}:${root}`;
  const done = built.get(key);
  if (done) return new Map([...done].map(([f, to]) => [f, [...to]]));
  const graph: ImportGraph = new Map();
  for (const f of tsFiles(root)) {
    const targets = runtimeImports(readFileSync(f, 'utf8'), withTypes)
      .map((s) => resolveSpecifier(f, s))
      .filter((t): t is string => t !== null && t.startsWith(root));
    graph.set(
      relative(root, f),
      targets.map((t) => relative(root, t)),
    );
  }
  built.set(key, graph);
  return new Map([...graph].map(([f, to]) => [f, [...to]]));
}

/** The graph between top-level folders ('.' for files at the root): who imports whom, self-edges left out. */
export function folderGraph(files: ImportGraph): ImportGraph {
  const top = (f: string): string => (f.includes('/') ? f.slice(0, f.indexOf('/')) : '.');
  const graph: ImportGraph = new Map();
  for (const [f, targets] of files) {
    const from = top(f);
    const out = graph.get(from) ?? [];
    for (const t of targets) if (top(t) !== from && !out.includes(top(t))) out.push(top(t));
    graph.set(from, out);
  }
  return graph;
}

/** The strongly connected components with more than one file (Tarjan): each is a cycle. */
export function importCycles(graph: ImportGraph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const connect = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) connect(v);
  return found;
}
