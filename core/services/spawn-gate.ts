/**
 * The one check between a client's request and a process started on its word. A request
 * that names a program (a training command, a build's own ffmpeg/ffprobe, a Python to run)
 * is refused with EXEC_DISABLED unless the host allows commands (Electron, or `beton serve
 * --allow-exec`). It runs in BetonService.call before any handler, on every method, and it
 * looks at the request's keys rather than at a list of routes: a route added later (or a new
 * place in a config that names a program) is covered without anyone remembering to call it.
 */

/** Request keys whose value names something the server would run. */
export const PROGRAM_KEYS: ReadonlySet<string> = new Set(['exec', 'command', 'ffmpeg', 'ffprobe', 'python', 'executable']);

/** Where a request names a program (dotted key paths, e.g. `config.source.ffmpeg`); empty when nowhere. */
export function programsNamed(params: unknown, at = '', depth = 0): string[] {
  // Parsed requests are shallow; the bound only keeps a hostile one from recursing far.
  if (params === null || typeof params !== 'object' || depth > 32) return [];
  const found: string[] = [];
  const entries: Array<[string, unknown]> = Array.isArray(params)
    ? params.map((v, i): [string, unknown] => [String(i), v])
    : Object.entries(params);
  for (const [k, v] of entries) {
    const here = at ? `${at}.${k}` : k;
    if (PROGRAM_KEYS.has(k) && v !== undefined && v !== null) found.push(here);
    else for (const p of programsNamed(v, here, depth + 1)) found.push(p);
  }
  return found;
}
