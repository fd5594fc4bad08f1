import { formatPercent } from './format.js';

/**
 * A share (0..1) as a percentage people can trust: never above 100%. Two readings taken at
 * slightly different instants (a process's CPU against the machine's, a wait against its
 * step) can give a ratio just over 1; it is shown as 100% and `note` says why (the walk found
 * "waits 101% of each step").
 */
export function shareText(x: number): { text: string; note: string | null } {
  if (x > 1)
    return {
      text: formatPercent(100),
      note: `measured ${formatPercent(x * 100)}: the two readings are taken at slightly different instants, so a share can read just over 100%; shown as 100%`,
    };
  return { text: formatPercent(Math.max(0, x) * 100), note: null };
}
