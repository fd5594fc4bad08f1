import { summarizeDataset } from '../app/inspect-dataset.js';
import { flagHelp } from './flags/flag-help.js';
import { parseFlags, switchFlag, type FlagTable } from './flags/flag-table.js';
import { UsageError } from './usage-error.js';
import { printable, printableJson } from '../format/printable.js';

export const INSPECT_FLAGS = {
  json: switchFlag('print the summary (or the --env report) as JSON'),
  hash: switchFlag("add each region's SHA-256 (reads the whole file)"),
  env: switchFlag('the JPEG decode path, native addons, CPU and GPUs instead of a FILE'),
} satisfies FlagTable;

export const INSPECT_HELP = `beton inspect FILE [--json] [--hash]
beton inspect --env [--json]      (the JPEG decode path, native addons, CPU and GPUs)

Prints version, sample count, page size, fields with their arguments, pages used, bytes
per field and the raw/jpg mix of image fields. Reads only metadata and the allocation table.

${flagHelp(INSPECT_FLAGS)}`;

const mib = (b: number): string =>
  b >= 1 << 20 ? `${(b / (1 << 20)).toFixed(2)} MiB` : b >= 1024 ? `${(b / 1024).toFixed(1)} KiB` : `${b} B`;

export async function inspectCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, INSPECT_FLAGS);
  if (values.env) return envReport(values.json ?? false);
  if (positionals.length !== 1) throw new UsageError('expected exactly one FILE');
  const s = await summarizeDataset(positionals[0]!, { hashRegions: values.hash ?? false });
  if (values.json) {
    process.stdout.write(printableJson(JSON.stringify(s, null, 2)) + '\n');
    return 0;
  }
  const lines = [
    printable(s.path),
    `  format version ${s.version}, ${s.numSamples} samples, ${s.fields.length} fields, ${mib(s.fileSize)}`,
    `  page size ${mib(s.pageSize)} (${s.pageSize}), ${s.numPages} data pages, ${s.allocations} allocations, record ${s.recordSize} B`,
    `  fields:`,
    ...s.fields.map((f) => {
      const args = Object.keys(f.arguments).length ? ` ${printableJson(JSON.stringify(f.arguments))}` : '';
      const modes = f.imageModes ? `, ${f.imageModes.raw} raw / ${f.imageModes.jpg} jpg` : '';
      return `    ${f.index}. ${printable(f.name).padEnd(16)} ${f.ffcvClass} (type ${f.typeId})${args}, metadata @${f.metadataOffset} (${f.metadataSize} B), heap ${mib(f.heapBytes)}${modes}`;
    }),
    `  regions:`,
    ...s.regions.map(
      (r) => `    ${printable(r.name).padEnd(12)} @${String(r.offset).padEnd(10)} ${mib(r.size)}${r.sha256 ? ` sha256 ${r.sha256}` : ''}`,
    ),
  ];
  process.stdout.write(lines.join('\n') + '\n');
  return 0;
}

/** Which decode path the loader uses and why, the native addons, the machine. */
async function envReport(json: boolean): Promise<number> {
  const { describeDecodePath, decodePath, turboStatus } = await import('../native/turbo.js');
  const { native } = await import('../native/beton-addon.js');
  const { machineInfo } = await import('../profile/sampling/machine.js');
  const m = await machineInfo();
  const env = {
    decodePath: decodePath(),
    decode: describeDecodePath(),
    turbo: turboStatus(),
    writerJpeg: native.jpegLibrary,
    node: process.version,
    machine: m,
  };
  if (json) process.stdout.write(JSON.stringify(env, null, 2) + '\n');
  else {
    process.stdout.write(
      [
        `loader JPEG decode: ${env.decode}`,
        `writer JPEG codec:  ${env.writerJpeg}`,
        `node ${env.node} on ${m.os}; ${m.cpuModel}, ${m.cores} logical cores, ${(m.ramBytes / 2 ** 30).toFixed(1)} GiB RAM`,
        `GPUs: ${m.gpus.length ? m.gpus.map((g) => `#${g.index} ${g.name} (${g.memoryTotalMiB} MiB)`).join(', ') : 'none found (nvidia-smi)'}`,
      ].join('\n') + '\n',
    );
  }
  return 0;
}
