import { homedir } from 'node:os';
import { posix, win32 } from 'node:path';

/**
 * Where the runs database lives when no path is given: `$BETON_DB`, else the per-user data
 * folder — `$XDG_DATA_HOME/beton-studio` or `~/.local/share/beton-studio` (Linux and others),
 * `~/Library/Application Support/Beton Studio` (macOS), `%APPDATA%\Beton Studio` (Windows).
 */
export function defaultDbPath(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = homedir(),
): string {
  if (env.BETON_DB) return env.BETON_DB;
  if (platform === 'win32') return win32.join(env.APPDATA || win32.join(home, 'AppData', 'Roaming'), 'Beton Studio', 'runs.sqlite');
  if (platform === 'darwin') return posix.join(home, 'Library', 'Application Support', 'Beton Studio', 'runs.sqlite');
  // XDG: a relative XDG_DATA_HOME is invalid and must be ignored.
  const xdg = env.XDG_DATA_HOME && posix.isAbsolute(env.XDG_DATA_HOME) ? env.XDG_DATA_HOME : posix.join(home, '.local', 'share');
  return posix.join(xdg, 'beton-studio', 'runs.sqlite');
}
