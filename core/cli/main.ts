import { constants } from 'node:os';
import { asBetonError, InterruptedError } from '../format/errors.js';
import { BENCH_LOADER_HELP, benchLoaderCommand } from './bench-loader-command.js';
import { BUILD_HELP, buildCommand } from './build-command.js';
import { CP_HELP, cpCommand } from './cp-command.js';
import { CHECK_HELP, checkCommand } from './check-command.js';
import { DUMP_HELP, dumpCommand } from './dump-command.js';
import { EXPORT_HELP, exportCommand } from './export-command.js';
import { INSPECT_HELP, inspectCommand } from './inspect-command.js';
import { MERGE_HELP, mergeCommand } from './merge-command.js';
import { RUNS_HELP, runsCommand } from './runs-command.js';
import { SERVE_HELP, serveCommand } from './serve-command.js';
import { PROFILE_HELP, profileCommand } from './profile-command.js';
import { withRemoteOutput } from './remote-output.js';
import { UsageError } from './usage-error.js';
import { printableText } from '../format/printable.js';
import { didYouMean, unknownOptionMessage } from './did-you-mean.js';
import { versionText } from './version.js';

const COMMANDS: Record<string, { help: string; run: (argv: string[]) => Promise<number> }> = {
  build: { help: BUILD_HELP, run: (argv) => withRemoteOutput(argv, buildCommand) },
  inspect: { help: INSPECT_HELP, run: inspectCommand },
  check: { help: CHECK_HELP, run: checkCommand },
  dump: { help: DUMP_HELP, run: dumpCommand },
  merge: { help: MERGE_HELP, run: (argv) => withRemoteOutput(argv, mergeCommand) },
  'bench-loader': { help: BENCH_LOADER_HELP, run: benchLoaderCommand },
  runs: { help: RUNS_HELP, run: runsCommand },
  export: { help: EXPORT_HELP, run: exportCommand },
  serve: { help: SERVE_HELP, run: serveCommand },
  profile: { help: PROFILE_HELP, run: profileCommand },
  cp: { help: CP_HELP, run: cpCommand },
};

const HELP = `beton — FFCV-compatible .beton datasets

Usage: beton <command> [options]   (beton <command> --help for details)

Commands:
  build     build a .beton file from an image folder or a build config
  inspect   summarise a .beton file (ours or FFCV's)
  check     find corrupt samples, duplicates, near-duplicates, outliers; count classes
  dump      print every sample in the canonical JSON encoding
  merge     concatenate .beton files with the same fields (e.g. build shards)
  bench-loader  measure the loader's images/s on a file
  runs      list, show, compare, plot and delete recorded profile runs
  export    Python FFCV code (or JSON) for a build or loader config
  serve     serve the app to a browser (GPU boxes without a display)
  profile   find the bottleneck: loader sweep or your training command, with a verdict
  cp        copy a dataset to or from object storage (s3://, https://), checked

Exit codes: 0 ok, 1 failure, 2 bad usage.  beton --version: version and native addon.`;

/** Runs the CLI; returns the exit code (0 ok, 1 failure, 2 bad usage). */
export async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (!cmd || cmd === '--help' || cmd === '-h' || cmd === 'help') {
    // Asked for: stdout, 0. No command at all is bad usage: stderr, 2.
    (cmd ? process.stdout : process.stderr).write(HELP + '\n');
    return cmd ? 0 : 2;
  }
  if (cmd === '--version' || cmd === '-V' || cmd === 'version') {
    process.stdout.write(versionText() + '\n');
    return 0;
  }
  const c = COMMANDS[cmd];
  if (!c) {
    // One line and the way on, not the whole help: a typo is the usual cause.
    const guess = didYouMean(cmd, Object.keys(COMMANDS));
    const what = cmd.startsWith('-') ? `unknown option ${cmd}` : `unknown command "${cmd}"`;
    process.stderr.write(`beton: ${what}${guess ? ` (did you mean ${guess}?)` : ''}\n  beton --help lists the commands.\n`);
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

/**
 * What to lower when memory runs out, per command (a failed allocation names no option).
 * Bench-loader and profile size the loader's batch buffers from the batch and output size.
 */
const OUT_OF_MEMORY_HINT: Record<string, string> = {
  build: 'Lower --workers (each holds images being encoded) or --max-resolution, or build in parts with --shard k/N.',
  'bench-loader': 'Lower --batch-size or the decoder output size (--decoder rrc:SIZE / center:SIZE), or --workers.',
  profile: 'Lower --batch-sizes or the decoder output size (--decoder rrc:SIZE / center:SIZE), or --workers.',
  dump: 'Dump a part at a time with --range a:b.',
  merge: 'Merge fewer files at a time.',
};

/** Commands that write an output file under a temporary name: a failure leaves nothing. */
const WRITES_ATOMICALLY = new Set(['build', 'merge', 'cp']);

/**
 * Prints a failure as one line, `beton CMD: error [CODE]: message`, plus what to do, and
 * returns the exit code: 2 for bad usage, 128 + n for a signal, else 1. No stack trace:
 * failures of the inputs or the system are not bugs. An error that is none of ours is
 * (it prints as INTERNAL); BETON_DEBUG=1 adds the stack to every failure.
 */
function report(e: unknown, cmd: string, help: string): number {
  const debug =
    process.env.BETON_DEBUG === '1' && e instanceof Error && e.stack
      ? `${e.stack}
`
      : '';
  const code = (e as { code?: unknown } | null)?.code;
  if (
    e instanceof UsageError ||
    code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ||
    code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' ||
    code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL'
  ) {
    // The message and where the options are: the help itself is one --help away.
    const message = unknownOptionMessage((e as Error).message, help) ?? (e as Error).message;
    process.stderr.write(`beton ${cmd}: ${printableText(message)}\n  beton ${cmd} --help lists the options.\n${debug}`);
    return 2;
  }
  const be = asBetonError(e);
  if (!be) {
    const msg = e instanceof Error ? e.message : String(e);
    process.stderr.write(
      `beton ${cmd}: error [INTERNAL]: ${printableText(msg)}\n  This looks like a bug in beton: run again with BETON_DEBUG=1 for the stack trace, and report it.\n${debug}`,
    );
    return 1;
  }
  // Library messages name the library's option beside the flag ("--force (overwrite: true)"):
  // on the command line only the flag means something.
  const lines = [`beton ${cmd}: error [${be.code}]: ${be.message.replace(' (overwrite: true)', '')}`];
  const hint = be.code === 'OUT_OF_MEMORY' ? (OUT_OF_MEMORY_HINT[cmd] ?? be.hint) : be.hint;
  if (hint) lines.push(`  ${hint}`);
  if (WRITES_ATOMICALLY.has(cmd) && !(be instanceof InterruptedError) && be.code !== 'OUTPUT_EXISTS' && be.code !== 'OUTPUT_IS_INPUT')
    lines.push('  No output file was written.');
  process.stderr.write(printableText(lines.join('\n')) + '\n' + debug);
  if (be instanceof InterruptedError) return 128 + (constants.signals[be.signal as NodeJS.Signals] ?? 0);
  return 1;
}
