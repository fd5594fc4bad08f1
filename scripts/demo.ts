/**
 * `npm run demo`: the main job on the bundled sample. Builds a .beton from
 * assets/sample-images, inspects it, loads it with the loader, profiles it (a short
 * sweep and a verdict) and records the run in the default runs database.
 */
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  buildDataset,
  parseBuildConfig,
  ImageFolderSource,
  Loader,
  RandomHorizontalFlip,
  RandomResizedCropRGBImageDecoder,
  Reader,
  RunsDb,
  ToCHW,
  defaultDbPath,
  summarize,
} from '../core/index.js';
import { profile } from '../core/profile/sweep/sweep.js';
import { ProgressBar } from '../core/cli/progress.js';
import { recordInto } from '../core/app/record-build.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const source = new ImageFolderSource(join(root, 'assets/sample-images'));
const outDir = join(root, '.demo');
mkdirSync(outDir, { recursive: true });
const out = join(outDir, 'sample.beton');

console.log(`Beton Studio demo\n  source: ${source.root} (${source.length} images, classes: ${source.classes.join(', ')})`);
const bar = new ProgressBar('  build');
const config = parseBuildConfig({
  source: { type: 'image_folder', path: source.root },
  output: out,
  image: { writeMode: 'smart', smartThreshold: 150 * 110 * 3, maxResolution: 160, jpegQuality: 90 },
  pageSize: 2 * 1024 * 1024,
});
if (!config.ok) throw new Error(config.errors.join('; '));
const report = await buildDataset(config.value, {
  onProgress: (p) => bar.update({ done: p.done, total: p.total, rate: p.samplesPerSec, etaMs: p.etaMs }),
});
bar.update({ done: report.numSamples, total: report.numSamples, rate: report.samplesPerSec, etaMs: 0 }, true);
bar.done();
console.log(
  `  wrote ${report.path}: ${report.numSamples} samples, ${(report.fileSize / 2 ** 20).toFixed(1)} MiB, ${report.samplesPerSec.toFixed(0)} samples/s`,
);

const reader = await Reader.open(out);
const s = summarize(reader);
for (const f of s.fields) {
  const modes = f.imageModes ? ` (${f.imageModes.raw} raw / ${f.imageModes.jpg} jpg)` : '';
  console.log(`  field ${f.name}: ${f.ffcvClass}, ${(f.heapBytes / 1024).toFixed(0)} KiB on the heap${modes}`);
}

// Load it: the loader decodes on worker threads straight into shared batch slots.
const loader = await Loader.open(out, {
  batchSize: 16,
  order: 'quasi_random',
  seed: 0,
  pipelines: { image: [RandomResizedCropRGBImageDecoder(96), RandomHorizontalFlip(), ToCHW()] },
});
const t0 = performance.now();
let images = 0;
const labels = new Map<bigint, number>();
for await (const batch of loader) {
  images += batch.size;
  const lab = batch.get('label').data as BigInt64Array;
  for (const l of lab) labels.set(l, (labels.get(l) ?? 0) + 1);
}
const secs = (performance.now() - t0) / 1000;
await loader.close();
reader.close();
console.log(
  `  loaded ${images} images (RandomResizedCrop 96 + flip + CHW) in ${(secs * 1000).toFixed(0)} ms: ${(images / secs).toFixed(0)} images/s`,
);
console.log(`  labels: ${[...labels.entries()].map(([l, c]) => `${source.classes[Number(l)]}=${c}`).join(', ')}`);

// Profile it: a short sweep over workers, then the verdict, recorded in the runs database.
const run = await profile({ file: out, batchSizes: [16], decoder: 'rrc:96', secondsPerPoint: 1, warmupBatches: 1 }, { gpu: true });
for (const p of run.points)
  console.log(
    `  profile: ${p.config.workers} worker${p.config.workers === 1 ? '' : 's'}: ${p.imagesPerSec.toFixed(0)} images/s, consumer waited ${p.waitP50Ms.toFixed(1)} ms/batch (median)`,
  );
if (run.verdict) console.log(`  verdict: ${run.verdict.kind} — ${run.verdict.summary}`);
const db = RunsDb.open();
const id = db.saveRun(run);
const note = await recordInto(() => db)(config.value, report); // as beton build and the app's builds do
if (note) console.log(`  build ${note}`);
db.close();
console.log(`  recorded as run ${id} in ${defaultDbPath()}`);
// `npm run beton --` runs this checkout's CLI at once (npx would first install the checkout into its cache).
console.log(`Done. Next: npm run beton -- inspect ${out} · npm run beton -- runs show ${id} · npm run beton -- serve ${root}`);
