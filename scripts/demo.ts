/**
 * `npm run demo`: the main job on the bundled sample. Builds a .beton from
 * assets/sample-images, inspects it, reads every sample back and prints a report.
 * (The loader, the profiler and the runs database join this script as they land.)
 */
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DatasetWriter, ImageFolderSource, Reader, summarize, type DecodedImage } from '../core/index.js';
import { ProgressBar } from '../core/cli/progress.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const source = new ImageFolderSource(join(root, 'assets/sample-images'));
const outDir = join(root, '.demo');
mkdirSync(outDir, { recursive: true });
const out = join(outDir, 'sample.beton');

console.log(`Beton Studio demo\n  source: ${source.root} (${source.length} images, classes: ${source.classes.join(', ')})`);
const bar = new ProgressBar('  build');
const report = await new DatasetWriter(out, source.schema({ writeMode: 'smart', smartThreshold: 100 * 100 * 3, maxResolution: 160, jpegQuality: 90 }), {
  pageSize: 2 * 1024 * 1024,
  onProgress: (p) => bar.update({ done: p.done, total: p.total, rate: p.samplesPerSec, etaMs: p.etaMs }),
}).write(source);
bar.update({ done: report.numSamples, total: report.numSamples, rate: report.samplesPerSec, etaMs: 0 }, true);
bar.done();
console.log(`  wrote ${report.path}: ${report.numSamples} samples, ${(report.fileSize / 2 ** 20).toFixed(1)} MiB, ${report.samplesPerSec.toFixed(0)} samples/s`);

const reader = await Reader.open(out);
const s = summarize(reader);
for (const f of s.fields) {
  const modes = f.imageModes ? ` (${f.imageModes.raw} raw / ${f.imageModes.jpg} jpg)` : '';
  console.log(`  field ${f.name}: ${f.ffcvClass}, ${(f.heapBytes / 1024).toFixed(0)} KiB on the heap${modes}`);
}

const t0 = performance.now();
let pixels = 0;
const labels = new Map<bigint, number>();
for (let i = 0; i < reader.numSamples; i++) {
  const sample = reader.read(i);
  pixels += (sample.image as DecodedImage).data.byteLength / 3;
  const label = sample.label as bigint;
  labels.set(label, (labels.get(label) ?? 0) + 1);
}
const secs = (performance.now() - t0) / 1000;
reader.close();
console.log(`  read back ${s.numSamples} samples (${(pixels / 1e6).toFixed(2)} Mpx) in ${(secs * 1000).toFixed(0)} ms: ${(s.numSamples / secs).toFixed(0)} images/s on one thread`);
console.log(`  labels: ${[...labels.entries()].map(([l, c]) => `${source.classes[Number(l)]}=${c}`).join(', ')}`);
console.log(`Done. Inspect it with: npx beton inspect ${out}`);
