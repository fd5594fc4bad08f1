/**
 * The samples a build skipped (on error: skip), read back from the report it wrote beside the
 * file (`<file>.skipped.json`, core/app/build.ts), so the Dataset screen's Health can say
 * "2 files were left out at build time" instead of a bare "Corrupt 0". A report that names
 * another output, or counts other written samples than the file holds, is not this build's.
 */
import { readFileSync } from 'node:fs';
import type { BuildSkips } from '../api/contract.js';

/** Skipped samples listed at most (the count is always whole). */
const LISTED = 200;

export function buildSkips(path: string, numSamples: number): BuildSkips | null {
  const reportPath = `${path}.skipped.json`;
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(reportPath, 'utf8'));
  } catch {
    return null; // none (a build without skips writes none), a URL, or unreadable: nothing to say
  }
  if (typeof doc !== 'object' || doc === null) return null;
  const d = doc as { written?: unknown; skipped?: unknown };
  if (d.written !== numSamples || !Array.isArray(d.skipped)) return null;
  const items = d.skipped
    .filter(
      (x): x is { index: number; path: string | null; reason: string } =>
        typeof x === 'object' && x !== null && typeof x.reason === 'string',
    )
    .map((x) => ({ index: Number(x.index), path: typeof x.path === 'string' ? x.path : null, reason: x.reason }));
  return { reportPath, count: items.length, items: items.slice(0, LISTED) };
}
