/**
 * The renderer's stylesheets live beside their screens and components (issue 32), and
 * renderer/src/styles/index.css @imports every one of them in cascade order. Vite orders the
 * built CSS by the JS import graph, so a stylesheet imported by its component would land
 * wherever that component is first reached and could silently flip which of two
 * equal-specificity rules wins. Hence: main.tsx imports only styles/index.css, and
 * index.css lists every .css file under renderer/src exactly once.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '../../renderer/src');
const INDEX = join(SRC, 'styles/index.css');

/** Every file under renderer/src whose name ends with `ext`, relative to renderer/src. */
function filesEndingWith(ext: string): string[] {
  return readdirSync(SRC, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(ext))
    .map((e) => relative(SRC, join(e.parentPath, e.name)))
    .sort();
}

/** The stylesheets index.css imports, in order, relative to renderer/src. */
function indexed(): string[] {
  const text = readFileSync(INDEX, 'utf8');
  return [...text.matchAll(/@import\s+'([^']+)'/g)].map((m) => relative(SRC, resolve(join(SRC, 'styles'), m[1]!)));
}

describe('renderer stylesheets', () => {
  it('index.css imports every stylesheet under renderer/src once', () => {
    const listed = indexed();
    expect(new Set(listed).size).toBe(listed.length);
    const all = filesEndingWith('.css').filter((f) => f !== 'styles/index.css');
    expect([...listed].sort()).toEqual(all);
  });

  it('only main.tsx imports CSS, and only styles/index.css', () => {
    const importers = filesEndingWith('.tsx')
      .concat(filesEndingWith('.ts'))
      .flatMap((f) => [...readFileSync(join(SRC, f), 'utf8').matchAll(/^import\s+'([^']+\.css)';/gm)].map((m) => `${f}: ${m[1]}`));
    expect(importers).toEqual(['main.tsx: ./styles/index.css']);
  });
});
