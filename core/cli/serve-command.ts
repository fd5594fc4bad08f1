import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BetonService } from '../services/beton-service.js';
import { startHttpServer } from '../services/http-server.js';
import { applyRemotePrefixes, normalizePrefix } from '../services/remote-access.js';
import { flagHelp } from './flags/flag-help.js';
import { defaultedFlag, parseFlags, repeatedFlag, switchFlag, valueFlag, type FlagTable } from './flags/flag-table.js';
import { integer, madeBy, matching, path, text } from './flags/parsers.js';
import { UsageError } from './usage-error.js';
import { captureCommand } from '../profile/exec/capture-command.js';

/** A prefix the service accepts, kept as given (the service and the URL policy normalize it themselves). */
const checkedPrefix = (p: string): string => (normalizePrefix(p), p);

export const SERVE_FLAGS = {
  port: defaultedFlag('N', integer({ min: 0, max: 65535 }), 5780, 'the port (default 5780; 0: any free port)'),
  host: valueFlag('ADDR', text('an address of this machine'), 'the address to bind (default 127.0.0.1, loopback)'),
  db: valueFlag('PATH', path(), 'the runs database (default $BETON_DB or the per-user file)'),
  'allow-exec': switchFlag([
    'let the app profile a training command (Profile → Training command)',
    'and builds use their own ffmpeg: anyone holding the URL can then run',
    'shell commands as you. Off by default.',
  ]),
  'allow-host': repeatedFlag('NAME', matching(/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d+)?$/i, 'NAME or NAME:PORT (IPv6 in brackets)'), [
    'also answer requests addressed to NAME (or NAME:PORT): for --host',
    'beyond loopback, or a tunnel on another local port. Repeatable.',
  ]),
  'allow-remote': repeatedFlag('URL', madeBy(checkedPrefix, 's3://bucket/prefix or https://host/path'), [
    'let the app open datasets under this s3:// or https:// prefix (with',
    "this process's AWS credentials). Repeatable; none by default: the",
    'server never fetches a URL a client names outside these prefixes.',
  ]),
  python: valueFlag('PATH', path(), [
    'the Python interpreter of the ffcv and torch engines (default',
    '$BETON_PYTHON, else python3 on PATH); checked by running it.',
  ]),
} satisfies FlagTable;

export const SERVE_HELP = `beton serve [FOLDER ...] [--port N] [--host 127.0.0.1] [--db PATH] [--allow-exec] [--allow-host NAME[:PORT]]...
            [--allow-remote s3://bucket/prefix]... [--python PATH]

Serves the Beton Studio app to a browser, for GPU machines without a display. Prints a URL
with a random token; every API request needs it. The browser may open files only inside
the FOLDERs given (default: the current directory), and builds read only files inside
them (image lists naming files elsewhere are refused row by row). Binds to loopback by
default: reach it from your laptop with an SSH tunnel (ssh -L PORT:127.0.0.1:PORT host),
keeping the port the same, since requests must name this server (Host) as printed.

${flagHelp(SERVE_FLAGS)}`;

/** The package root, from dist/core/cli or core/cli. */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'renderer'))) return dir;
    dir = dirname(dir);
  }
  return process.cwd();
}

export async function serveCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, SERVE_FLAGS);
  const port = values.port;
  const roots = (positionals.length ? positionals : [process.cwd()]).map((p) => resolve(p));
  for (const r of roots) if (!existsSync(r)) throw new UsageError(`${r} does not exist`);
  const host = values.host ?? '127.0.0.1';
  if (host !== '127.0.0.1' && host !== 'localhost' && host !== '::1') {
    process.stderr.write(`warning: binding to ${host} exposes the app beyond this machine; the token is the only protection\n`);
  }
  const allowExec = values['allow-exec'] === true;
  const allowedHosts = values['allow-host'] ?? [];
  if (allowExec)
    process.stderr.write('warning: --allow-exec: anyone holding the URL can run shell commands as you (Profile → Training command)\n');
  const remoteRoots = values['allow-remote'] ?? [];
  applyRemotePrefixes(remoteRoots);
  // The engines' interpreter, validated by running it now: a wrong path is one line at start, not a greyed-out engine later.
  const python = values.python;
  if (python !== undefined) {
    const r = await captureCommand(python, ['-c', 'import sys; print(sys.version.split()[0])'], { timeoutMs: 30_000 });
    if (r.status !== 0)
      throw new UsageError(
        `--python ${python}: it does not run Python (${r.error?.message ?? r.stderr.trim().split('\n').pop() ?? `exit ${r.status}`})`,
      );
  }
  const service = new BetonService({ roots, dbPath: values.db, host: 'server', allowExec, remoteRoots, ...(python ? { python } : {}) });
  const { url, close } = await startHttpServer({ service, host, port, allowedHosts, staticDir: join(packageRoot(), 'renderer', 'dist') });
  process.stdout.write(`Beton Studio is serving ${[...roots, ...remoteRoots].join(', ')}\n  open ${url}\n  (Ctrl-C to stop)\n`);
  await new Promise<void>((r) => {
    process.once('SIGINT', r);
    process.once('SIGTERM', r);
  });
  service.close();
  await close();
  return 0;
}
