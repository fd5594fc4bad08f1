import { existsSync } from 'node:fs';
import { extname, isAbsolute, resolve } from 'node:path';
import { IMAGE_EXTENSIONS } from '../common/image-extensions.js';
import { refusedBy, type ReadGuard } from '../common/read-guard.js';

/** A path-like string ending in one of torchvision's image extensions. */
export function looksLikeImagePath(v: unknown): boolean {
  return typeof v === 'string' && v.length > 0 && !v.includes('\n') && IMAGE_EXTENSIONS.includes(extname(v).toLowerCase());
}

/** Every non-missing sampled value is an image path (and there is at least one). */
export function looksLikeImageColumn(values: readonly unknown[]): boolean {
  let any = false;
  for (const v of values) {
    if (v === undefined || v === null || v === '') continue;
    if (!looksLikeImagePath(v)) return false;
    any = true;
  }
  return any;
}

/**
 * Columns of image paths: every sampled value ends in an image extension and the first
 * one exists (relative to `baseDir`). The existence check keeps a caption such as
 * "a photo of cat.jpg" from being taken for a file. A path the `guard` refuses (beton serve:
 * outside the served folders) is not looked at: the column counts as images whether or not
 * that file exists (the answer must not tell), and the build then refuses its rows.
 */
export function findImageColumns(
  columns: readonly string[],
  rows: ReadonlyArray<readonly unknown[]>,
  baseDir: string,
  guard?: ReadGuard,
): string[] {
  return columns.filter((_, i) => {
    const values = rows.map((r) => r[i]);
    if (!looksLikeImageColumn(values)) return false;
    const first = values.find((v) => typeof v === 'string' && v !== '') as string;
    const path = isAbsolute(first) ? first : resolve(baseDir, first);
    return refusedBy(guard, path) || existsSync(path);
  });
}
