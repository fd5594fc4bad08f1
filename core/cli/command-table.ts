/**
 * The CLI's commands: name, one-line summary, and how to load the module that runs it.
 * Modules are imported only when their command runs (or prints its own --help): importing
 * all of them up front pulled in the writer, the services and their libraries, so even
 * `beton --version` paid for every command. `beton --help` and did-you-mean need only this
 * table.
 */

/** What a command's module gives the CLI: its --help text and how to run it. */
export interface LoadedCommand {
  help: string;
  run: (argv: string[]) => Promise<number>;
}

export interface CommandEntry {
  /** One line for `beton --help`. */
  summary: string;
  load: () => Promise<LoadedCommand>;
}

/** Commands writing an output that may be an s3:// URL: built locally, then uploaded. */
async function remoteOutput(run: (argv: string[]) => Promise<number>): Promise<(argv: string[]) => Promise<number>> {
  const { withRemoteOutput } = await import('./remote-output.js');
  return (argv) => withRemoteOutput(argv, run);
}

/** In `beton --help` order. */
export const COMMANDS: Readonly<Record<string, CommandEntry>> = {
  build: {
    summary: 'build a .beton file from an image folder or a build config',
    load: async () => {
      const m = await import('./build-command.js');
      return { help: m.BUILD_HELP, run: await remoteOutput(m.buildCommand) };
    },
  },
  inspect: {
    summary: "summarise a .beton file (ours or FFCV's)",
    load: async () => {
      const m = await import('./inspect-command.js');
      return { help: m.INSPECT_HELP, run: m.inspectCommand };
    },
  },
  check: {
    summary: 'find corrupt samples, duplicates, near-duplicates, outliers; count classes',
    load: async () => {
      const m = await import('./check-command.js');
      return { help: m.CHECK_HELP, run: m.checkCommand };
    },
  },
  dump: {
    summary: 'print every sample in the canonical JSON encoding',
    load: async () => {
      const m = await import('./dump-command.js');
      return { help: m.DUMP_HELP, run: m.dumpCommand };
    },
  },
  merge: {
    summary: 'concatenate .beton files with the same fields (e.g. build shards)',
    load: async () => {
      const m = await import('./merge-command.js');
      return { help: m.MERGE_HELP, run: await remoteOutput(m.mergeCommand) };
    },
  },
  'bench-loader': {
    summary: "measure the loader's images/s on a file",
    load: async () => {
      const m = await import('./bench-loader-command.js');
      return { help: m.BENCH_LOADER_HELP, run: m.benchLoaderCommand };
    },
  },
  runs: {
    summary: 'list, show, compare, plot and delete recorded profile runs',
    load: async () => {
      const m = await import('./runs-command.js');
      return { help: m.RUNS_HELP, run: m.runsCommand };
    },
  },
  export: {
    summary: 'Python FFCV code (or JSON) for a build or loader config',
    load: async () => {
      const m = await import('./export-command.js');
      return { help: m.EXPORT_HELP, run: m.exportCommand };
    },
  },
  serve: {
    summary: 'serve the app to a browser (GPU boxes without a display)',
    load: async () => {
      const m = await import('./serve-command.js');
      return { help: m.SERVE_HELP, run: m.serveCommand };
    },
  },
  profile: {
    summary: 'find the bottleneck: loader sweep or your training command, with a verdict',
    load: async () => {
      const m = await import('./profile-command.js');
      return { help: m.PROFILE_HELP, run: m.profileCommand };
    },
  },
  cp: {
    summary: 'copy a dataset to or from object storage (s3://, https://), checked',
    load: async () => {
      const m = await import('./cp-command.js');
      return { help: m.CP_HELP, run: m.cpCommand };
    },
  },
};

/** The command list of `beton --help`: names padded to a column (a long name takes two spaces). */
export function commandList(): string {
  return Object.entries(COMMANDS)
    .map(([name, c]) => `  ${name.padEnd(8)}  ${c.summary}`)
    .join('\n');
}
