import { constants } from 'node:os';
import { asBetonError, InterruptedError } from '../format/errors.js';
import { COMMANDS, commandList } from './command-table.js';
import { UsageError } from './usage-error.js';
import { printableText } from '../format/printable.js';
import { didYouMean, unknownOptionMessage } from './did-you-mean.js';
import { versionText } from './version.js';

const HELP = `beton — FFCV-compatible .beton datasets

Usage: beton <command> [options]   (beton <command> --help for details)

Commands:
${commandList()}

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
  const entry = Object.hasOwn(COMMANDS, cmd) ? COMMANDS[cmd] : undefined;
  if (!entry) {
    // One line and the way on, not the whole help: a typo is the usual cause.
    const guess = didYouMean(cmd, Object.keys(COMMANDS));
    const what = cmd.startsWith('-') ? `unknown option ${cmd}` : `unknown command "${cmd}"`;
    process.stderr.write(`beton: ${what}${guess ? ` (did you mean ${guess}?)` : ''}\n  beton --help lists the commands.\n`);
    return 2;
  }
  // Only this command's module (and what it imports) loads: see command-table.ts.
  let help = '';
  try {
    const c = await entry.load();
    help = c.help;
    if (rest.includes('--help') || rest.includes('-h')) {
      process.stdout.write(c.help + '\n');
      return 0;
    }
    return await c.run(rest);
  } catch (e) {
    return report(e, cmd, help);
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
