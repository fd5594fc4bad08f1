import { BetonEncodeError, BetonFormatError } from '../format/errors.js';
import { BENCH_LOADER_HELP, benchLoaderCommand } from './bench-loader-command.js';
import { BUILD_HELP, buildCommand } from './build-command.js';
import { DUMP_HELP, dumpCommand } from './dump-command.js';
import { EXPORT_HELP, exportCommand } from './export-command.js';
import { INSPECT_HELP, inspectCommand } from './inspect-command.js';
import { MERGE_HELP, mergeCommand } from './merge-command.js';
import { RUNS_HELP, runsCommand } from './runs-command.js';
import { SERVE_HELP, serveCommand } from './serve-command.js';
import { PROFILE_HELP, profileCommand } from './profile-command.js';
import { UsageError } from './usage-error.js';

const COMMANDS: Record<string, { help: string; run: (argv: string[]) => Promise<number> }> = {
  build: { help: BUILD_HELP, run: buildCommand },
  inspect: { help: INSPECT_HELP, run: inspectCommand },
  dump: { help: DUMP_HELP, run: dumpCommand },
  merge: { help: MERGE_HELP, run: mergeCommand },
  'bench-loader': { help: BENCH_LOADER_HELP, run: benchLoaderCommand },
  runs: { help: RUNS_HELP, run: runsCommand },
  export: { help: EXPORT_HELP, run: exportCommand },
  serve: { help: SERVE_HELP, run: serveCommand },
  profile: { help: PROFILE_HELP, run: profileCommand },
};

const HELP = `beton — FFCV-compatible .beton datasets

Usage: beton <command> [options]   (beton <command> --help for details)

Commands:
  build     build a .beton file from an image folder or a build config
  inspect   summarise a .beton file (ours or FFCV's)
  dump      print every sample in the canonical JSON encoding
  merge     concatenate .beton files with the same fields (e.g. build shards)
  bench-loader  measure the loader's images/s on a file
  runs      list, show, compare, plot and delete recorded profile runs
  export    Python FFCV code (or JSON) for a build or loader config
  serve     serve the app to a browser (GPU boxes without a display)
  profile   find the bottleneck: loader sweep or your training command, with a verdict

Exit codes: 0 ok, 1 failure, 2 bad usage.`;

/** Runs the CLI; returns the exit code (0 ok, 1 failure, 2 bad usage). */
export async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (!cmd || cmd === '--help' || cmd === '-h' || cmd === 'help') {
    process.stdout.write(HELP + '\n');
    return cmd ? 0 : 2;
  }
  const c = COMMANDS[cmd];
  if (!c) {
    process.stderr.write(`beton: unknown command "${cmd}"\n\n${HELP}\n`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(c.help + '\n');
    return 0;
  }
  try {
    return await c.run(rest);
  } catch (e) {
    return report(e, cmd, c.help);
  }
}

function report(e: unknown, cmd: string, help: string): number {
  const err = e as Error & { code?: string };
  if (e instanceof UsageError || err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || err.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' || err.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
    process.stderr.write(`beton ${cmd}: ${err.message}\n\n${help}\n`);
    return 2;
  }
  if (e instanceof BetonFormatError) {
    process.stderr.write(`beton ${cmd}: error [${e.code}]: ${e.message}\n  Check that the file is a complete .beton file (FFCV format version 2); rebuild it if it was cut short.\n`);
    return 1;
  }
  if (e instanceof BetonEncodeError) {
    process.stderr.write(`beton ${cmd}: error [${e.code}]: ${e.message}\n  No output file was written.\n`);
    return 1;
  }
  if (err.code === 'ENOENT' || err.code === 'EACCES' || err.code === 'EISDIR') {
    process.stderr.write(`beton ${cmd}: error [${err.code}]: ${err.message}\n`);
    return 1;
  }
  process.stderr.write(`beton ${cmd}: error: ${err.stack ?? String(e)}\n`);
  return 1;
}
