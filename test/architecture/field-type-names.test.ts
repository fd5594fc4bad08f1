/**
 * A field type's name is spelled once (issue 32, "one place per fact"): core/api/constants.ts
 * (`FIELD_TYPE`), which core/fields' identities read. Everywhere else compares with the
 * identities (`RGB_IMAGE_IDENTITY.type`) or, in the renderer and the front ends, `FIELD_TYPE`.
 * A quoted 'rgb_image', 'video_clip' or 'torch_tensor' anywhere else in core, renderer or electron fails here.
 * ('ndarray', 'int', 'float', 'bytes' and 'json' also name decoders and column kinds.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const NAMES = /'(rgb_image|video_clip|torch_tensor)'/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return /\.(ts|tsx)$/.test(e.name) ? [p] : [];
  });
}

describe('field type names', () => {
  it('are spelled only in core/api/constants.ts', () => {
    const found = ['core', 'renderer/src', 'electron'].flatMap((d) =>
      sourceFiles(join(ROOT, d)).flatMap((p) => {
        const file = relative(ROOT, p);
        return readFileSync(p, 'utf8')
          .split('\n')
          .flatMap((line, i) => (NAMES.test(line) && file !== 'core/api/constants.ts' ? [`${file}:${i + 1}: ${line.trim()}`] : []));
      }),
    );
    expect(found).toEqual([]);
  });
});
