/**
 * requires(what, why, have): without `what`, a test file skips with a warning — or under
 * CI=true fails, so CI never passes by skipping Chromium, ffmpeg or a built dist/.
 */
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../..');
const CONFIG = 'test/helpers/requires-case/vitest.config.ts';

function runCase(ci: boolean): { status: number | null; out: string } {
  const env = { ...process.env };
  delete env.CI;
  if (ci) env.CI = 'true';
  const r = spawnSync(
    'timeout',
    ['-k', '5', '120', process.execPath, join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--config', CONFIG],
    { cwd: ROOT, env, encoding: 'utf8' },
  );
  return { status: r.status, out: r.stdout + r.stderr };
}

describe('requires()', () => {
  it('skips with a warning naming what to install', () => {
    const r = runCase(false);
    expect(r.status, r.out).toBe(0);
    expect(r.out).toContain('SKIPPED: needs a tool that is not there: install it');
  });

  it('fails under CI=true', () => {
    const r = runCase(true);
    expect(r.status, r.out).not.toBe(0);
    expect(r.out).toContain('needs a tool that is not there (CI=true: missing is a failure, not a skip)');
  });
});
