/**
 * One way for a test file to say it needs something the machine may lack (Chromium,
 * ffmpeg, a built dist/): `describe.skipIf(!requires('ffmpeg', 'apt-get install -y ffmpeg', HAVE_FFMPEG))`.
 * Without it the block is skipped with a warning naming what to install, or — under CI=true —
 * a failing test stands in for it, so CI never passes by skipping (as the FFCV and Slurm
 * suites do).
 */
import { it } from 'vitest';

export function requires(what: string, why: string, have: boolean): boolean {
  if (have) return true;
  const msg = `needs ${what}: ${why}`;
  if (process.env.CI === 'true') {
    it(`needs ${what} (CI=true: missing is a failure, not a skip)`, () => {
      throw new Error(msg);
    });
  } else {
    process.stderr.write(`\n*** SKIPPED: ${msg}\n\n`);
  }
  return false;
}
