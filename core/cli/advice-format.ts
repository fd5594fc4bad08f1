import type { BuildAdvice } from '../api/build-advice.js';

const size = (b: number): string =>
  b >= 1 << 20 ? `${(b / (1 << 20)).toFixed(1)} MiB` : b >= 1024 ? `${(b / 1024).toFixed(1)} KiB` : `${Math.round(b)} B`;
const secs = (s: number): string =>
  s >= 3600 ? `${(s / 3600).toFixed(1)} h` : s >= 60 ? `${(s / 60).toFixed(1)} min` : `${s.toFixed(s < 10 ? 2 : 0)} s`;

/** `beton build --advise`: the same advice the app's Sources screen shows, as text. */
export function formatAdvice(a: BuildAdvice): string {
  const e = a.estimate;
  const lines = ['advice (estimates; nothing was written)', `  ${e.note}`];
  lines.push(
    `  about ${size(e.heapBytesPerSample)} of data per sample (largest sampled ${size(e.largestSampleBytes)}), ${e.encodeMsPerSample.toFixed(2)} ms to encode one`,
  );
  if (e.fileBytes !== null) lines.push(`  output: about ${size(e.fileBytes)}`);
  if (e.buildSeconds !== null)
    lines.push(`  build time: about ${secs(e.buildSeconds)} with ${e.workers} encoder${e.workers === 1 ? '' : 's'}`);
  if (a.pageSizes.length) {
    lines.push('  page size → file size:');
    for (const o of a.pageSizes)
      lines.push(
        `    ${size(o.pageSize).padStart(9)} → ${size(o.fileBytes)} (${o.pages} page${o.pages === 1 ? '' : 's'})${o.chosen ? '  [chosen]' : ''}${o.suggested ? '  [suggested]' : ''}`,
      );
  }
  if (a.pageSizeAdvice) lines.push(`  ${a.pageSizeAdvice}`);
  if (a.quality) {
    const q = a.quality;
    lines.push(
      `  field "${q.field}" (${q.writeMode}${q.smartThreshold !== null ? `, smart threshold ${q.smartThreshold} B` : ''}): bytes per image`,
    );
    for (const it of q.items)
      lines.push(
        `    #${it.index} ${it.width}x${it.height}: ${it.variants.map((v) => `${v.chosen ? '*' : ''}${v.label} ${size(v.bytes)}`).join(', ')}`,
      );
    if (q.smart)
      lines.push(`    smart threshold: ${q.smart.jpg} of ${q.smart.jpg + q.smart.raw} sampled images stored as JPEG, ${q.smart.raw} raw`);
  }
  if (a.crop) lines.push(`  stored images ${a.crop.minSide}-${a.crop.maxSide} px against the loader's ${a.crop.loaderSize} px crop`);
  for (const w of a.warnings) lines.push(`  warning: ${w}`);
  return lines.join('\n') + '\n';
}
