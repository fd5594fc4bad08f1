/**
 * A `beton build … -o s3://…` child killed with a signal once it has started writing: what
 * remote-write (SIGTERM, fast tier) and remote-write-sigkill (SIGKILL, slow tier) check is
 * that no object appears at the key. Returns the build's own TMPDIR, for the caller to check.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI } from './cli.js';

export async function killS3Build(dir: string, env: NodeJS.ProcessEnv, sig: 'SIGKILL' | 'SIGTERM', url: string): Promise<string> {
  // A CSV large enough that the build is still running when it is killed.
  const csv = join(dir, `rows-${sig}.csv`);
  writeFileSync(csv, 'a,b\n' + Array.from({ length: 400_000 }, (_, i) => `${i},${i / 7}`).join('\n') + '\n');
  const tmp = join(dir, `tmp-${sig}`);
  mkdirSync(tmp);
  const child = spawn('timeout', ['-k', '5', '120', process.execPath, CLI, 'build', csv, '-o', url], {
    env: { ...env, TMPDIR: tmp },
    stdio: 'ignore',
  });
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  // Kill once the build has started writing in its temporary folder.
  const t0 = Date.now();
  while (Date.now() - t0 < 60_000 && !readdirSync(tmp).some((d) => readdirSync(join(tmp, d)).length > 0))
    await new Promise((r) => setTimeout(r, 20));
  // The node process under `timeout` (never pid 0: that would signal our own group).
  const node = Number(
    spawnSync('pgrep', ['-P', String(child.pid)], { encoding: 'utf8' })
      .stdout.trim()
      .split('\n')[0],
  );
  process.kill(Number.isInteger(node) && node > 0 ? node : child.pid!, sig);
  await exited;
  return tmp;
}
