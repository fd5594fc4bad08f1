/**
 * An answer's action as the `beton …` command that carries it out: the one place the CLI turns
 * id + params into a command line (beton profile prints these; the app presses buttons that
 * carry the same params). Made from the params alone, so what is printed is what was stored.
 */
import type { ActionParams, AnswerAction } from '../../api/profile-answer.js';

/** Single-quoted for a POSIX shell, unless it is plainly safe. */
export function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

type P = ActionParams[string] | undefined;
const list = (v: P): string | null => (Array.isArray(v) && v.length ? v.map(String).join(',') : null);
const str = (v: P): string | null => (typeof v === 'string' && v !== '' ? v : null);
const num = (v: P): number | null => (typeof v === 'number' ? v : null);

function profileArgs(p: ActionParams): string[] {
  const a = ['beton', 'profile', shellQuote(str(p.file) ?? 'FILE')];
  const flag = (name: string, v: string | null): void => {
    if (v !== null) a.push(`--${name}`, shellQuote(v));
  };
  flag('workers', list(p.workers));
  flag('batch-sizes', list(p.batchSizes));
  flag('orders', list(p.orders));
  flag('os-cache', Array.isArray(p.osCache) ? p.osCache.map((b) => (b ? 'on' : 'off')).join(',') : null);
  flag('decoder', str(p.decoder));
  if (p.flip === false) a.push('--no-flip');
  if (p.fastDecode === true) a.push('--fast-decode');
  flag('batches-ahead', num(p.batchesAhead)?.toString() ?? null);
  flag('engine', list(p.engines));
  flag('source', str(p.source));
  flag('train-with', str(p.trainWith));
  flag('process-cache', num(p.processCacheBytes)?.toString() ?? null);
  flag('seconds', num(p.secondsPerPoint)?.toString() ?? null);
  return a;
}

function execArgs(p: ActionParams): string[] {
  const a = ['beton', 'profile', '--exec', shellQuote(str(p.command) ?? 'COMMAND')];
  if (str(p.file)) a.push(shellQuote(str(p.file)!));
  if (list(p.workers)) a.push('--workers', list(p.workers)!);
  if (list(p.batchSizes)) a.push('--batch-sizes', list(p.batchSizes)!);
  if (num(p.secondsPerPoint)) a.push('--seconds', String(num(p.secondsPerPoint)));
  if (str(p.throughputRegex)) a.push('--regex', shellQuote(str(p.throughputRegex)!));
  return a;
}

/** The command line for an action; null when it has none (never, for the ids there are). */
export function actionCommand(action: AnswerAction): string | null {
  const p = action.params;
  switch (action.id) {
    case 'resweep':
    case 'switch-engine':
      return profileArgs(p).join(' ');
    case 'reprofile-idle':
      return (str(p.command) !== null ? execArgs(p) : profileArgs(p)).join(' ');
    case 'exec-sweep':
      return execArgs(p).join(' ');
    case 'run-command':
      return str(p.command);
    case 'profile-loader':
      return `beton profile ${shellQuote(str(p.file) ?? 'FILE')}`;
    case 'rebuild': {
      const a = ['beton', 'build', 'SOURCE', '-o', shellQuote(str(p.file) ?? 'OUT.beton')];
      if (str(p.writeMode)) a.push('--write-mode', shellQuote(str(p.writeMode)!));
      if (num(p.maxResolution) !== null) a.push('--max-resolution', String(num(p.maxResolution)));
      if (num(p.jpegQuality) !== null) a.push('--jpeg-quality', String(num(p.jpegQuality)));
      return a.join(' ');
    }
    case 'export': {
      const a = ['beton', 'export', shellQuote(str(p.file) ?? 'FILE')];
      if (num(p.batchSize) !== null) a.push('--batch-size', String(num(p.batchSize)));
      if (num(p.workers) !== null) a.push('--workers', String(num(p.workers)));
      if (str(p.order)) a.push('--order', str(p.order)!);
      if (str(p.decoder)) a.push('--decoder', str(p.decoder)!);
      if (p.flip === true) a.push('--flip');
      if (p.osCache === false) a.push('--no-os-cache');
      return a.join(' ');
    }
  }
}
