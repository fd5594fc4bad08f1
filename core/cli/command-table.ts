/**
 * The CLI's commands: name, one-line summary, and how to load the module that runs it.
 * Modules are imported only when their command runs (or prints its own --help): importing
 * all of them up front pulled in the writer, the services and their libraries, so even
 * `beton --version` paid for every command. `beton --help` and did-you-mean need only this
 * table.
 */

import type { FlagTable } from './flags/flag-table.js';
import type { RemoteAwareCommand } from './remote-output.js';

/** What a command's module gives the CLI: its --help text, its flags (the one table the help lists) and how to run it. */
export interface LoadedCommand {
  help: string;
  flags: FlagTable;
  run: (argv: string[]) => Promise<number>;
}

export interface CommandEntry {
  /** One line for `beton --help`. */
  summary: string;
  load: () => Promise<LoadedCommand>;
}

/** A command whose output may be an s3:// URL: streamed to it as it is written (remote-output.ts). */
const remoteOutput =
  (run: RemoteAwareCommand, what: string) =>
  async (argv: string[]): Promise<number> =>
    (await import('./remote-output.js')).withRemoteOutput(argv, run, what);

/** An entry whose module `load` imports and `pick` takes the help text and runner from. */
function lazy<M>(summary: string, load: () => Promise<M>, pick: (m: M) => LoadedCommand): CommandEntry {
  return { summary, load: async () => pick(await load()) };
}

/** In `beton --help` order. The import() calls are literal, so bundlers and tsc see every module. */
export const COMMANDS: Readonly<Record<string, CommandEntry>> = {
  build: lazy(
    'build a .beton: image folder/list, CSV/TSV/Parquet/JSONL/npy table, WebDataset, videos, config',
    () => import('./build-command.js'),
    (m) => ({ help: m.BUILD_HELP, flags: m.BUILD_FLAGS, run: remoteOutput(m.buildCommand, 'the build') }),
  ),
  inspect: lazy(
    "summarise a .beton file (ours or FFCV's)",
    () => import('./inspect-command.js'),
    (m) => ({ help: m.INSPECT_HELP, flags: m.INSPECT_FLAGS, run: m.inspectCommand }),
  ),
  check: lazy(
    'find corrupt samples, duplicates, near-duplicates, outliers; count classes',
    () => import('./check-command.js'),
    (m) => ({ help: m.CHECK_HELP, flags: m.CHECK_FLAGS, run: m.checkCommand }),
  ),
  dump: lazy(
    'print every sample in the canonical JSON encoding',
    () => import('./dump-command.js'),
    (m) => ({ help: m.DUMP_HELP, flags: m.DUMP_FLAGS, run: m.dumpCommand }),
  ),
  merge: lazy(
    'concatenate .beton files with the same fields (e.g. build shards)',
    () => import('./merge-command.js'),
    (m) => ({ help: m.MERGE_HELP, flags: m.MERGE_FLAGS, run: remoteOutput(m.mergeCommand, 'the merge') }),
  ),
  'bench-loader': lazy(
    "measure the loader's images/s on a file",
    () => import('./bench-loader-command.js'),
    (m) => ({ help: m.BENCH_LOADER_HELP, flags: m.BENCH_LOADER_FLAGS, run: m.benchLoaderCommand }),
  ),
  runs: lazy(
    'list, show, compare, plot and delete recorded profile runs',
    () => import('./runs-command.js'),
    (m) => ({ help: m.RUNS_HELP, flags: m.RUNS_FLAGS, run: m.runsCommand }),
  ),
  export: lazy(
    'Python FFCV code (or JSON) for a build config, a .beton file or a profile run',
    () => import('./export-command.js'),
    (m) => ({ help: m.EXPORT_HELP, flags: m.EXPORT_FLAGS, run: m.exportCommand }),
  ),
  serve: lazy(
    'serve the app to a browser (GPU boxes without a display)',
    () => import('./serve-command.js'),
    (m) => ({ help: m.SERVE_HELP, flags: m.SERVE_FLAGS, run: m.serveCommand }),
  ),
  profile: lazy(
    'find the bottleneck: loader sweep or your training command, with a verdict',
    () => import('./profile-command.js'),
    (m) => ({ help: m.PROFILE_HELP, flags: m.PROFILE_FLAGS, run: m.profileCommand }),
  ),
  cp: lazy(
    'copy a dataset to or from object storage (s3://, https://), checked',
    () => import('./cp-command.js'),
    (m) => ({ help: m.CP_HELP, flags: m.CP_FLAGS, run: m.cpCommand }),
  ),
};

/** The command list of `beton --help`: names padded to a column (a long name takes two spaces). */
export function commandList(): string {
  return Object.entries(COMMANDS)
    .map(([name, c]) => `  ${name.padEnd(8)}  ${c.summary}`)
    .join('\n');
}
