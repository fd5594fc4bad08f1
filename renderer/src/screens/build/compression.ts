import { formatBytes, formatRatio } from '../../lib/format.js';
import type { BuildReport } from '../../lib/types.js';

/** Sources against the file, both named: below 1× the file is the larger (raw pixels, page padding on a small build). */
export function compression(r: BuildReport): string {
  if (r.compressionRatio === null) return '— (the source sizes are unknown)';
  const ratio = r.compressionRatio;
  return ratio >= 1
    ? `${formatRatio(ratio)} (${formatBytes(r.sourceBytes)} of sources)`
    : `${formatRatio(ratio)}: the file is ${formatRatio(1 / ratio)} its ${formatBytes(r.sourceBytes)} of sources`;
}
