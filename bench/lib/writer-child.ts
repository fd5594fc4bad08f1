/**
 * One timed build of ours for `npm run bench -- writer --vs-ffcv`, in a fresh process (as
 * FFCV's side runs in a fresh interpreter): lists the ImageFolder, then times
 * DatasetWriter.write with the settings FFCV's side uses, stage timings on.
 *
 *   node dist/bench/lib/writer-child.js '{"root":…,"out":…,"workers":2,"maxResolution":256,"quality":90,"pageSize":8388608}'
 *
 * Prints one JSON line: { report (WriteReport with timings), cpuMs (this process, all
 * threads, during the write), processCpuMs (the whole process), importMs (process start to
 * the write) }.
 */
import { DatasetWriter, ImageFolderSource } from '../../core/index.js';

interface ChildArgs {
  root: string;
  out: string;
  workers: number;
  maxResolution: number;
  quality: number;
  pageSize: number;
}

const args = JSON.parse(process.argv[2] ?? '{}') as ChildArgs;
const source = new ImageFolderSource(args.root);
const samples = [...source];
const schema = source.schema({ writeMode: 'jpg', maxResolution: args.maxResolution, jpegQuality: args.quality });
const importMs = performance.now();
const cpu0 = process.cpuUsage();
const report = await new DatasetWriter(args.out, schema, { numWorkers: args.workers, pageSize: args.pageSize, timings: true }).write(
  samples,
);
const cpu = process.cpuUsage(cpu0);
// The whole process's CPU too (start-up and imports included): the parent subtracts it from
// the machine's busy time to see what other processes used.
const total = process.cpuUsage();
process.stdout.write(
  JSON.stringify({ report, cpuMs: (cpu.user + cpu.system) / 1000, processCpuMs: (total.user + total.system) / 1000, importMs }) + '\n',
);
