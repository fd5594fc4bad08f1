#!/usr/bin/env node
/**
 * Entry point of `npm run bench -- <name> [options]`.
 *
 * Benchmarks are TypeScript under bench/, compiled to dist/bench/ by `npm run build:ts`.
 * This file stays plain JS so that it runs before any build and can say so when the build
 * is missing, instead of failing with a bare ERR_MODULE_NOT_FOUND.
 *
 * Adding a benchmark: write bench/<file>.ts exporting `main(argv: string[]): Promise<number>`
 * (see bench/lib/cli.ts, BenchMain) and add one entry to BENCHMARKS below.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** name → compiled module (relative to dist/bench/) and a one-line summary for the listing. */
const BENCHMARKS = {
  writer: {
    module: 'writer.js',
    summary: 'DatasetWriter samples/s for raw/jpg/smart at numWorkers 1 and 2 vs the bare encode step; JPEG pass-through off vs on',
  },
  loader: {
    module: 'loader.js',
    summary:
      'Loader img/s (RRC 160 + flip + CHW) over batch x order x osCache x workers vs the bare native decode (limit) and a naive sharp loader',
  },
  'csv-memory': {
    module: 'csv-memory.js',
    summary: 'buildDataset of a generated 5M-row CSV: rows/s, and RSS/heap sampled every 100 ms (flat vs 500k rows)',
  },
  video: {
    module: 'video.js',
    summary:
      'video clips: .beton (VideoClipField, per-frame JPEG) vs ffmpeg decoding per clip — loader start, epoch time, storage, as ratios',
  },
  merge: {
    module: 'merge.js',
    summary: 'beton merge GB/s on shards of a few hundred MB vs cp, cp + sync and cat of the same bytes',
  },
  check: {
    module: 'check.js',
    summary: 'beton check samples/s on 3,000 ImageNet-like JPEGs at 1/4, 1/2, all and 1-2 workers; near-duplicate search on 10k-1M hashes',
  },
  'object-storage': {
    module: 'object-storage.js',
    summary: 'Loader img/s over s3:// (s3rver on loopback) vs the local file: page pool, disk cache; bytes and requests per epoch',
  },
  'stream-upload': {
    module: 'stream-upload.js',
    summary: 'build -o s3:// streamed (s3rver on loopback) vs build locally + beton cp: time, peak local scratch, peak RSS, same bytes',
  },
  'cli-startup': {
    module: 'cli-startup.js',
    summary: 'beton --version / --help / inspect --help wall ms vs node -e "" (the Node floor), interleaved in the same run',
  },
  ratios: {
    module: 'ratios.js',
    summary:
      'issue 31: images (RRC160 loader), writer (jpg 256 q90) and 1.28M-record tabular lines vs the real FFCV, interleaved rounds, medians and ratios to .bench/ratios-<date>.json (--quick, --hogs N)',
  },
  generate: {
    module: 'generate-imagenet-like.js',
    summary: '(utility) create or reuse the synthetic ImageNet-like folder the benchmarks read',
  },
};

const here = dirname(fileURLToPath(import.meta.url));
const root = dirname(here);
const distBench = join(root, 'dist', 'bench');

function usage(stream) {
  stream.write('usage: npm run bench -- <name> [options]   (or: node bench/run.js <name> [options])\n\n');
  stream.write('benchmarks:\n');
  const width = Math.max(...Object.keys(BENCHMARKS).map((n) => n.length));
  for (const [name, b] of Object.entries(BENCHMARKS)) stream.write(`  ${name.padEnd(width)}  ${b.summary}\n`);
  stream.write('\noptions: --help (those of one benchmark); benchmarks also take --quick (small, 1 repetition: a smoke test)\n');
  stream.write('build first: npm run build:ts (benchmarks run from dist/bench/)\n');
}

/** Warns when the TypeScript source changed after the last build: the numbers would be for old code. */
function warnIfStale(compiled) {
  const source = join(here, relative(distBench, compiled)).replace(/\.js$/, '.ts');
  if (existsSync(source) && statSync(source).mtimeMs > statSync(compiled).mtimeMs) {
    process.stderr.write(
      `warning: ${relative(root, source)} is newer than its build; run "npm run build:ts" to benchmark the current code\n`,
    );
  }
}

async function main(argv) {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'list') {
    usage(process.stdout);
    return 0;
  }
  const bench = Object.hasOwn(BENCHMARKS, name) ? BENCHMARKS[name] : undefined;
  if (!bench) {
    process.stderr.write(`unknown benchmark "${name}"\n\n`);
    usage(process.stderr);
    return 2;
  }
  const compiled = join(distBench, bench.module);
  if (!existsSync(compiled)) {
    process.stderr.write(
      `${relative(root, compiled)} not found: the benchmarks run from the compiled build.\n` +
        'Build it first:  npm run build:ts   (the native addon too, if not built: npm run build:native)\n',
    );
    return 1;
  }
  warnIfStale(compiled);
  const mod = await import(pathToFileURL(compiled).href);
  if (typeof mod.main !== 'function') {
    process.stderr.write(`${relative(root, compiled)} does not export main(argv); see bench/lib/cli.ts\n`);
    return 1;
  }
  return mod.main(rest);
}

main(process.argv.slice(2)).then(
  (code) => {
    // exitCode, not exit(): let stdout drain when piped.
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
