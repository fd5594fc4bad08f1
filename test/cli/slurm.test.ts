// A real single-node Slurm cluster (Debian's slurm-wlm + munge), started and stopped by this
// file with its own state folder and ports: the script `beton build --emit slurm` writes is
// submitted as is, and the merged file must equal a single build. Without Slurm (or root)
// the suite skips, loudly; under CI=true that is a failure (CI installs slurm-wlm and munge).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  cpSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalSample } from '../../core/reader/canonical.js';
import { Reader } from '../../core/reader/reader.js';
import type { ShardsStatus } from '../../core/writer/shard-progress.js';
import { cli as run, type CliResult } from '../helpers/cli.js';

const ROOT = resolve(__dirname, '../..');
const SAMPLE = join(ROOT, 'assets/sample-images');
const TOOLS = ['munged', 'mungekey', 'slurmctld', 'slurmd', 'sbatch', 'squeue', 'sinfo', 'runuser'];

function missing(): string | null {
  const absent = TOOLS.filter((t) => spawnSync('sh', ['-c', `command -v ${t}`], { encoding: 'utf8' }).status !== 0);
  if (absent.length) return `not installed: ${absent.join(', ')} (apt-get install -y slurm-wlm munge)`;
  if (process.getuid?.() !== 0) return 'the test cluster runs its daemons as root (SlurmUser=root) and munged as the munge user';
  if (spawnSync('id', ['munge']).status !== 0) return 'no "munge" user (the munge package creates it)';
  return null;
}

function describeSlurm(name: string, body: () => void): void {
  const why = missing();
  if (!why) {
    describe(name, body);
    return;
  }
  if (process.env.CI === 'true') {
    describe(name, () => {
      it('needs Slurm (CI=true: a missing Slurm is a failure, not a skip)', () => {
        throw new Error(why);
      });
    });
    return;
  }
  process.stderr.write(`\n*** Slurm suite SKIPPED: ${name}\n*** ${why}\n\n`);
  describe.skip(name, body);
}

async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      s.close(() => res(port));
    });
  });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls `check` every 250 ms until it returns true or `ms` pass; then throws with `what`. */
async function until(what: string, ms: number, check: () => boolean): Promise<void> {
  const t0 = Date.now();
  while (!check()) {
    if (Date.now() - t0 > ms) throw new Error(`timed out after ${ms / 1000} s waiting for ${what}`);
    await sleep(250);
  }
}

class TestCluster {
  /** Set by start(): nothing is created while the suite is only being collected (or skipped). */
  dir = '';
  private readonly procs: ChildProcess[] = [];
  private readonly node = hostname().split('.')[0]!;

  get conf(): string {
    return join(this.dir, 'slurm.conf');
  }

  get env(): NodeJS.ProcessEnv {
    return { ...process.env, SLURM_CONF: this.conf };
  }

  /** A daemon in the foreground (-D/-F): a child of this process, stopped by pid in stop(). Logs go to the files named in its flags. */
  private daemon(cmd: string, args: string[]): void {
    this.procs.push(spawn(cmd, args, { stdio: 'ignore', env: this.env }));
  }

  async start(): Promise<void> {
    this.dir = mkdtempSync(join(tmpdir(), 'beton-slurm-'));
    const d = this.dir;
    chmodSync(d, 0o755); // munged (the munge user) must reach its socket folder
    const munge = join(d, 'munge');
    mkdirSync(munge, { mode: 0o755 });
    const uid = Number(spawnSync('id', ['-u', 'munge'], { encoding: 'utf8' }).stdout.trim());
    const gid = Number(spawnSync('id', ['-g', 'munge'], { encoding: 'utf8' }).stdout.trim());
    chownSync(munge, uid, gid);
    for (const sub of ['state', 'spool']) mkdirSync(join(d, sub));
    const asMunge = (args: string[]): string[] => ['-u', 'munge', '--', ...args];
    const key = spawnSync('runuser', asMunge(['mungekey', '--create', `--keyfile=${munge}/munge.key`]), { encoding: 'utf8' });
    if (key.status !== 0) throw new Error(`mungekey: ${key.stderr}`);
    const socket = join(munge, 'munge.socket');
    this.daemon(
      'runuser',
      asMunge([
        'munged',
        '-F',
        `--socket=${socket}`,
        `--key-file=${munge}/munge.key`,
        `--pid-file=${munge}/munged.pid`,
        `--seed-file=${munge}/munged.seed`,
        `--log-file=${munge}/munged.log`,
      ]),
    );
    await until('munged to create its socket', 15_000, () => existsSync(socket));
    const [ctldPort, slurmdPort] = [await freePort(), await freePort()];
    writeFileSync(
      this.conf,
      [
        'ClusterName=betontest',
        `SlurmctldHost=${this.node}(127.0.0.1)`,
        'SlurmUser=root',
        'SlurmdUser=root',
        `SlurmctldPort=${ctldPort}`,
        `SlurmdPort=${slurmdPort}`,
        'AuthType=auth/munge',
        'CryptoType=crypto/munge',
        `AuthInfo=socket=${socket}`,
        'MpiDefault=none',
        // No systemd or cgroups here: track processes by parent pid, no task containment.
        'ProctrackType=proctrack/linuxproc',
        'TaskPlugin=task/none',
        'ReturnToService=2',
        `SlurmctldPidFile=${d}/state/slurmctld.pid`,
        `SlurmdPidFile=${d}/state/slurmd.pid`,
        `SlurmdSpoolDir=${d}/spool`,
        `StateSaveLocation=${d}/state`,
        `SlurmctldLogFile=${d}/slurmctld.log`,
        `SlurmdLogFile=${d}/slurmd.log`,
        'SchedulerType=sched/backfill',
        'SelectType=select/cons_tres',
        'SelectTypeParameters=CR_Core',
        'JobCompType=jobcomp/none',
        'AccountingStorageType=accounting_storage/none',
        'JobAcctGatherType=jobacct_gather/none',
        `NodeName=${this.node} NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN`,
        'PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP',
      ].join('\n') + '\n',
    );
    // -D: stay in the foreground, so the processes are ours to stop; -i: ignore old state.
    this.daemon('slurmctld', ['-D', '-i', '-f', this.conf]);
    this.daemon('slurmd', ['-D', '-N', this.node, '-f', this.conf]);
    await until('the node to be idle in sinfo', 45_000, () =>
      /idle/.test(spawnSync('sinfo', ['-h', '-o', '%T'], { encoding: 'utf8', env: this.env }).stdout),
    );
  }

  /** Jobs still known to the controller (pending or running). */
  queue(): string {
    return spawnSync('squeue', ['-h', '-o', '%i %T %r'], { encoding: 'utf8', env: this.env }).stdout.trim();
  }

  logs(): string {
    return ['slurmctld.log', 'slurmd.log']
      .map((f) => join(this.dir, f))
      .filter(existsSync)
      .map((f) => `--- ${f}\n${readFileSync(f, 'utf8').split('\n').slice(-30).join('\n')}`)
      .join('\n');
  }

  async stop(): Promise<void> {
    // The daemons this file started, by pid (munged through its pid file: runuser is its parent).
    const pidFile = join(this.dir, 'munge/munged.pid');
    const mungedPid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : null;
    for (const p of [...this.procs].reverse()) if (p.exitCode === null && p.signalCode === null) p.kill('SIGTERM');
    if (mungedPid) {
      try {
        process.kill(mungedPid, 'SIGTERM');
      } catch {
        // already gone with runuser
      }
    }
    const t0 = Date.now();
    while (this.procs.some((p) => p.exitCode === null && p.signalCode === null) && Date.now() - t0 < 10_000) await sleep(100);
    for (const p of this.procs) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }
}

const cli = (args: string[], env?: NodeJS.ProcessEnv): CliResult => run(args, env ? { env } : {});

async function dumpAll(path: string): Promise<unknown[]> {
  const r = await Reader.open(path);
  try {
    return Array.from({ length: r.numSamples }, (_, i) => canonicalSample(r, i));
  } finally {
    r.close();
  }
}

describeSlurm('sharded builds on a real Slurm cluster', () => {
  const cluster = new TestCluster();
  let work = '';
  beforeAll(async () => {
    await cluster.start();
    work = join(cluster.dir, 'work');
    mkdirSync(work);
  }, 90_000);
  afterAll(() => cluster.stop(), 30_000);

  /** Emits and submits a sharded build of `source`; returns when Slurm has no job left. */
  async function submit(
    source: string,
    out: string,
    shards: number,
    flags: string[],
  ): Promise<{ script: string; statuses: ShardsStatus[] }> {
    const script = join(work, `${shards}-submit.sh`);
    const e = cli(['build', source, '-o', out, '--shards', String(shards), '--emit', 'slurm', '--emit-to', script, ...flags]);
    expect(e.status, e.stderr).toBe(0);
    const s = spawnSync('bash', [script], { encoding: 'utf8', env: cluster.env });
    expect(s.status, `${s.stdout}\n${s.stderr}`).toBe(0);
    expect(s.stdout).toMatch(/job array \d+ \(\d+ tasks\); merge: job \d+/);
    // Progress as users see it while the jobs run (any state will do; the end state is checked below).
    const statuses: ShardsStatus[] = [];
    await until(`the jobs to leave the queue:\n${cluster.queue()}\n${cluster.logs()}`, 120_000, () => {
      const st = cli(['build', '--status', `${out}.shards`, '--shards', String(shards), '--json']);
      if (st.status === 0) statuses.push(JSON.parse(st.stdout) as ShardsStatus);
      return cluster.queue() === '';
    });
    return { script, statuses };
  }

  it('a job array of shard builds, then an afterok merge: the merged file is the single build', async () => {
    const t0 = Date.now();
    const flags = ['--write-mode', 'proportion', '--max-resolution', '64', '--workers', '1'];
    const out = join(work, 'train.beton');
    const { statuses } = await submit(SAMPLE, out, 4, flags);
    const shardsDir = `${out}.shards`;
    const logs = readdirSync(shardsDir).filter((f) => f.startsWith('slurm-'));
    expect(existsSync(out), `no merged file; ${logs.map((f) => `${f}: ${readFileSync(join(shardsDir, f), 'utf8')}`).join('\n')}`).toBe(
      true,
    );
    expect(logs.length).toBe(5); // 4 tasks + the merge
    expect(
      readFileSync(
        join(
          shardsDir,
          logs.find((f) => f.startsWith('slurm-merge-'))!,
        ),
        'utf8',
      ),
    ).toContain(`wrote ${out}`);

    const single = join(work, 'single.beton');
    const b = cli(['build', SAMPLE, '-o', single, ...flags]);
    expect(b.status, b.stderr).toBe(0);
    expect(await dumpAll(out)).toEqual(await dumpAll(single));

    const st = cli(['build', '--status', shardsDir]);
    expect(st.status, st.stderr).toBe(0);
    expect(st.stdout).toMatch(/4\/4 shards done, 0 running, 0 pending, 0 failed; 48\/48 samples \(100%\)/);
    expect(statuses.at(-1)?.done).toBe(4);
    process.stderr.write(
      `slurm: 4 shard tasks + merge, submit to merged file in ${((Date.now() - t0) / 1000).toFixed(1)} s (including a single build to compare)\n`,
    );
  }, 180_000);

  it('a failing shard stops the merge (afterok) and shows as FAILED in --status; no output', async () => {
    const src = join(work, 'broken-src');
    for (const cls of ['a', 'b']) {
      mkdirSync(join(src, cls), { recursive: true });
      for (const f of ['circles/circles_00.jpg', 'stripes/stripes_03.png']) cpSync(join(SAMPLE, f), join(src, cls, f.split('/')[1]!));
    }
    writeFileSync(join(src, 'b', 'zz-broken.jpg'), 'not a jpeg');
    const out = join(work, 'broken.beton');
    await submit(src, out, 2, ['--workers', '1']);
    expect(existsSync(out)).toBe(false);
    const st = cli(['build', '--status', `${out}.shards`]);
    expect(st.status, st.stderr).toBe(0);
    expect(st.stdout).toMatch(/1\/2 shards done, 0 running, 0 pending, 1 failed/);
    expect(st.stdout).toMatch(/shard 1\/2 +FAILED .*zz-broken\.jpg/);
    // The merge job never ran: its output file does not exist.
    expect(readdirSync(`${out}.shards`).filter((f) => f.startsWith('slurm-merge-'))).toEqual([]);
  }, 180_000);
});
