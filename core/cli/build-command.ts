import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { parseBuildConfig, type BuildConfigInput } from '../api/build-config.js';
import { buildDataset } from '../writer/build.js';
import { ProgressBar } from './progress.js';
import { UsageError } from './usage-error.js';

export const BUILD_HELP = `beton build SOURCE -o OUT.beton [options]
beton build --config build.json

Builds a .beton file from an image folder (root/<class>/<image>).
  -o, --output FILE            output .beton file
  --write-mode MODE            raw | jpg | smart | proportion (default raw)
  --max-resolution N           cap the longer side at N pixels (area resampling)
  --jpeg-quality Q             1..100 (default 90)
  --smart-threshold BYTES      smart mode: JPEG when h*w*3 > BYTES
  --compress-probability P     proportion mode: JPEG with probability P (default 0.5)
  --page-size BYTES            power of two >= 2 MiB (default 8 MiB)
  --workers N                  encoder threads (default: cores)
  --config FILE                a build config (docs/build-config.md); flags override it
  --json                       print the build report as JSON`;

export async function buildCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      output: { type: 'string', short: 'o' },
      config: { type: 'string' },
      'write-mode': { type: 'string' },
      'max-resolution': { type: 'string' },
      'jpeg-quality': { type: 'string' },
      'smart-threshold': { type: 'string' },
      'compress-probability': { type: 'string' },
      'page-size': { type: 'string' },
      workers: { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  let raw: Record<string, unknown> = {};
  let baseDir = process.cwd();
  if (values.config) {
    const file = resolve(values.config);
    try {
      raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    } catch (e) {
      throw new UsageError(`cannot read build config ${file}: ${(e as Error).message}`);
    }
    baseDir = dirname(file);
  }
  if (positionals.length > 1) throw new UsageError(`expected one SOURCE, got ${positionals.length}`);
  if (positionals[0]) raw.source = { type: 'image_folder', path: resolve(positionals[0]) };
  if (values.output) raw.output = resolve(values.output);
  const num = (flag: string, v: string | undefined): number | undefined => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isFinite(n)) throw new UsageError(`--${flag} expects a number, got "${v}"`);
    return n;
  };
  const image: Record<string, unknown> = { ...((raw.image as Record<string, unknown>) ?? {}) };
  if (values['write-mode'] !== undefined) image.writeMode = values['write-mode'];
  if (values['max-resolution'] !== undefined) image.maxResolution = num('max-resolution', values['max-resolution']);
  if (values['jpeg-quality'] !== undefined) image.jpegQuality = num('jpeg-quality', values['jpeg-quality']);
  if (values['smart-threshold'] !== undefined) image.smartThreshold = num('smart-threshold', values['smart-threshold']);
  if (values['compress-probability'] !== undefined) image.compressProbability = num('compress-probability', values['compress-probability']);
  if (Object.keys(image).length) raw.image = image;
  if (values['page-size'] !== undefined) raw.pageSize = num('page-size', values['page-size']);
  if (values.workers !== undefined) raw.numWorkers = num('workers', values.workers);
  if (!raw.source) throw new UsageError('missing SOURCE (an image folder) or --config');
  if (!raw.output) throw new UsageError('missing -o OUT.beton');

  const parsed = parseBuildConfig(raw as BuildConfigInput);
  if (!parsed.ok) throw new UsageError(`invalid build config:\n  ${parsed.errors.join('\n  ')}`);
  const bar = new ProgressBar('build');
  const ac = new AbortController();
  const onSigint = (): void => ac.abort(new Error('interrupted (Ctrl-C); no output was written'));
  process.once('SIGINT', onSigint);
  try {
    const report = await buildDataset(parsed.value, {
      baseDir,
      signal: ac.signal,
      onProgress: (p) => bar.update({ done: p.done, total: p.total, rate: p.samplesPerSec, etaMs: p.etaMs }),
    });
    bar.update({ done: report.numSamples, total: report.numSamples, rate: report.samplesPerSec, etaMs: 0 }, true);
    bar.done();
    if (values.json) process.stdout.write(JSON.stringify(report, null, 2) + '\n');
    else {
      const modes = Object.entries(report.imageModes).map(([f, m]) => ` ${f}: ${m.raw} raw / ${m.jpg} jpg`).join(';');
      process.stdout.write(
        `wrote ${report.path}: ${report.numSamples} samples, ${report.pages} pages of ${report.pageSize} B, ${report.fileSize} bytes in ${(report.elapsedMs / 1000).toFixed(2)} s (${report.samplesPerSec.toFixed(1)} samples/s)${modes ? ';' + modes : ''}\n`,
      );
    }
    return 0;
  } finally {
    process.off('SIGINT', onSigint);
  }
}
