// The job files `beton build --shards N --emit slurm|k8s` writes, and `--status`, without a
// cluster: YAML parsed back, shell checked with `bash -n`, and the Slurm jobs run by hand
// (a fake sbatch records the submissions; each array task then runs as Slurm would run it).
// test/cli/slurm.test.ts runs the same script on a real Slurm cluster. The jobs run as real
// processes (bash and bin/beton.js, as a scheduler runs them); emitting and --status call the
// CLI's main() in this process, and the builds take a 6-image folder (each Node start and
// 48-image build made this file take 35 s).
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { toYaml } from '../../core/cli/cluster-emit.js';
import { canonicalSample } from '../../core/reader/canonical.js';
import { Reader } from '../../core/reader/reader.js';
import { readShardsStatus, type ShardProgress } from '../../core/writer/shard-progress.js';
import { cli as run, type CliResult } from '../helpers/cli.js';
import { cliHere } from '../helpers/cli-in-process.js';
import { smallImageFolder } from '../helpers/small-images.js';

// js-yaml is in node_modules through eslint; a YAML parser other than our writer is the point.
const yaml = createRequire(import.meta.url)('js-yaml') as { loadAll(text: string): unknown[]; load(text: string): unknown };

const ROOT = resolve(__dirname, '../..');
const SAMPLE = join(ROOT, 'assets/sample-images');
const dir = mkdtempSync(join(tmpdir(), 'beton-emit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cli = (args: string[], env?: NodeJS.ProcessEnv): CliResult => run(args, { cwd: dir, ...(env ? { env } : {}) });
/** 6 images (2 classes × 3): the shard builds' source. */
const SMALL = smallImageFolder(join(dir, 'small-src'));

async function dumpAll(path: string): Promise<unknown[]> {
  const r = await Reader.open(path);
  try {
    return Array.from({ length: r.numSamples }, (_, i) => canonicalSample(r, i));
  } finally {
    r.close();
  }
}

/** Runs `bash script` without blocking (several at once), with `env` added to this one's. */
function bash(script: string, env: NodeJS.ProcessEnv): Promise<{ status: number | null; stderr: string }> {
  return new Promise((done) => {
    const child = spawn('bash', [script], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (status) => done({ status, stderr }));
  });
}

type Obj = Record<string, unknown>;
const at = (o: unknown, ...path: Array<string | number>): unknown =>
  path.reduce<unknown>((v, k) => (v as Record<string | number, unknown>)?.[k], o);

describe('toYaml', () => {
  it('round-trips through a real YAML parser, strings staying strings', () => {
    const data = {
      plain: 'beton-build',
      numbers: ['2', '0.5', '1e3', '0x1f', '.5', '-1'],
      words: ['yes', 'No', 'on', 'OFF', 'null', 'true', '~', 'y'],
      yes: 'key that YAML 1.1 reads as a bool',
      'a key: with colon': 'value # not a comment',
      indicators: ['- dash', '* star', '&anchor', '!tag', '{x}', '[y]', '"q"', "'s'", '@at', '`tick`', '%pct', '|pipe', '>gt', '? q'],
      spaces: [' lead', 'trail ', '', 'a  b'],
      script: 'set -eu\nk=$JOB_COMPLETION_INDEX\n  indented\n\nexec beton "$k"\n',
      noTrailingNewline: 'line 1\nline 2',
      twoTrailingNewlines: 'x\n\n',
      leadingSpaceMultiline: '  a\nb\n',
      control: 'bell\u0007 tab\t',
      unicode: 'héllo ✓ 𝄞',
      nested: { empty: {}, list: [], deep: [{ a: 1, b: [true, false, null] }, [1, [2, [3]]]] },
      n: 3,
      f: -0.25,
    };
    expect(yaml.load(toYaml(data))).toEqual(data);
  });
});

describe('beton build --shards N --emit k8s', () => {
  it('writes a ConfigMap, an Indexed Job of N shard builds and a merge Job that waits for them', async () => {
    const root = join(dir, 'k8s');
    mkdirSync(root);
    smallImageFolder(join(root, 'src'));
    const out = join(root, 'out', 'train.beton');
    const e = await cliHere([
      'build',
      join(root, 'src'),
      '-o',
      out,
      '--shards',
      '5',
      '--emit',
      'k8s',
      '--workers',
      '3',
      '--write-mode',
      'jpg',
      '--image',
      'registry.example/beton:1.0',
      '--pvc',
      'datasets',
    ]);
    expect(e.status, e.stderr).toBe(0);
    const docs = yaml.loadAll(e.stdout) as Obj[];
    expect(docs.map((d) => d.kind)).toEqual(['ConfigMap', 'Job', 'Job']);
    const [cm, shards, merge] = docs as [Obj, Obj, Obj];
    const config = JSON.parse(at(cm, 'data', 'build.json') as string) as Obj;
    expect(at(config, 'source', 'path')).toBe(join(root, 'src'));
    expect(at(config, 'fields', 0, 'writeMode')).toBe('jpg');
    expect(config.shard).toBeUndefined();

    expect(at(shards, 'spec', 'completionMode')).toBe('Indexed');
    expect(at(shards, 'spec', 'completions')).toBe(5);
    const pod = at(shards, 'spec', 'template', 'spec') as Obj;
    expect(pod.restartPolicy).toBe('Never');
    const build = at(pod, 'containers', 0) as Obj;
    expect(build.image).toBe('registry.example/beton:1.0');
    expect(at(build, 'resources', 'requests', 'cpu')).toBe('3');
    const script = at(build, 'command', 2) as string;
    expect(at(build, 'command')).toEqual(['sh', '-c', script]);
    expect(spawnSync('sh', ['-n', '-c', script]).status).toBe(0);
    expect(script).toContain('--shard "$k/5"');
    expect(script).toContain('$JOB_COMPLETION_INDEX');
    // The script's shard path for k = 3, as sh computes it.
    const path3 = spawnSync('sh', ['-c', `${script.split('\n').find((l) => l.startsWith('shard='))!}; echo "$shard"`], {
      encoding: 'utf8',
      env: { ...process.env, k: '3' },
    });
    expect(path3.stdout.trim()).toBe(`${out}.shards/shard-00003-of-00005.beton`);
    const mounts = at(build, 'volumeMounts') as Obj[];
    expect(mounts[0]).toEqual({ name: 'data', mountPath: root });
    expect(at(pod, 'volumes', 0, 'persistentVolumeClaim', 'claimName')).toBe('datasets');
    expect(at(pod, 'volumes', 1, 'configMap', 'name')).toBe(at(cm, 'metadata', 'name'));

    const mpod = at(merge, 'spec', 'template', 'spec') as Obj;
    expect(at(mpod, 'initContainers', 0, 'command')).toEqual(['beton', 'build', '--status', `${out}.shards`, '--shards', '5', '--wait']);
    const mcmd = at(mpod, 'containers', 0, 'command') as string[];
    expect(mcmd).toEqual([
      'beton',
      'merge',
      ...[0, 1, 2, 3, 4].map((k) => `${out}.shards/shard-0000${k}-of-00005.beton`),
      '-o',
      out,
      '--force',
    ]);
    for (const d of docs) expect(at(d, 'metadata', 'name')).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
  });
});

describe('beton build --shards N --emit slurm', () => {
  it('the script submits an array and an afterok merge; run by hand, the jobs produce the single build', async () => {
    const out = join(dir, 'slurm', 'my data.beton'); // a space: every path in the jobs must be quoted
    mkdirSync(join(dir, 'slurm'));
    const script = join(dir, 'slurm', 'submit.sh');
    const flags = ['--write-mode', 'proportion', '--max-resolution', '48', '--workers', '1'];
    const e = await cliHere(['build', SMALL, '-o', out, '--shards', '3', '--emit', 'slurm', '--emit-to', script, ...flags]);
    expect(e.status, e.stderr).toBe(0);
    expect(spawnSync('bash', ['-n', script]).status).toBe(0);

    // A fake sbatch: records its arguments, prints a job id like `sbatch --parsable`.
    const bin = join(dir, 'fake-bin');
    mkdirSync(bin);
    const calls = join(dir, 'sbatch-calls');
    writeFileSync(
      join(bin, 'sbatch'),
      `#!/bin/bash\necho "$*" >> ${JSON.stringify(calls)}\nn=$(wc -l < ${JSON.stringify(calls)})\necho "$((100 + n));cluster"\n`,
    );
    chmodSync(join(bin, 'sbatch'), 0o755);
    const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, SBATCH_EXTRA: '--partition=cpu --time=1:00:00' };
    const s = spawnSync('bash', [script], { encoding: 'utf8', env });
    expect(s.status, s.stderr).toBe(0);
    expect(s.stdout).toContain('job array 101 (3 tasks); merge: job 102');
    const shardsDir = `${out}.shards`;
    const sub = readFileSync(calls, 'utf8').trim().split('\n');
    expect(sub).toEqual([
      `--parsable --partition=cpu --time=1:00:00 ${shardsDir}/build-shard.sbatch`,
      `--parsable --dependency=afterok:101 --kill-on-invalid-dep=yes --partition=cpu --time=1:00:00 ${shardsDir}/merge.sbatch`,
    ]);
    const array = readFileSync(join(shardsDir, 'build-shard.sbatch'), 'utf8');
    expect(array).toMatch(/^#SBATCH --array=0-2$/m);
    expect(array).toMatch(/^#SBATCH --cpus-per-task=1$/m);
    expect(JSON.parse(readFileSync(join(shardsDir, 'build.json'), 'utf8'))).toMatchObject({
      output: out,
      source: { type: 'image_folder', path: SMALL },
    });

    // Slurm runs each task with SLURM_ARRAY_TASK_ID (and SLURM_CPUS_PER_TASK), then the merge.
    // The tasks of an array run at once, as on a cluster (and in a third of the time here).
    const tasks = await Promise.all(
      [0, 1, 2].map((k) => bash(join(shardsDir, 'build-shard.sbatch'), { SLURM_ARRAY_TASK_ID: String(k), SLURM_CPUS_PER_TASK: '1' })),
    );
    for (const t of tasks) expect(t.status, t.stderr).toBe(0);
    const st = await cliHere(['build', '--status', shardsDir, '--json']);
    expect(st.status, st.stderr).toBe(0);
    expect(JSON.parse(st.stdout)).toMatchObject({ count: 3, done: 3, items: 6, totalItems: 6 });
    const m = spawnSync('bash', [join(shardsDir, 'merge.sbatch')], { encoding: 'utf8' });
    expect(m.status, m.stderr).toBe(0);
    const single = join(dir, 'slurm', 'single.beton');
    expect((await cliHere(['build', SMALL, '-o', single, ...flags])).status).toBe(0);
    expect(await dumpAll(out)).toEqual(await dumpAll(single));
  });

  it('bad combinations are usage errors (exit 2)', async () => {
    const out = join(dir, 'u.beton');
    const bad = [
      ['--shards', '3'],
      ['--emit', 'slurm'],
      ['--shards', '3', '--emit', 'pbs'],
      ['--shards', '0', '--emit', 'slurm'],
      ['--shards', '3', '--emit', 'slurm', '--shard', '0/3'],
      ['--shards', '3', '--emit', 'slurm', '--image', 'x'],
      ['--emit-to', 'x.sh'],
      ['--wait'],
    ];
    // The first as a real process (exit code 2, no stack), the others in this process.
    for (const [i, flags] of bad.entries()) {
      const args = ['build', SAMPLE, '-o', out, ...flags];
      const r = i === 0 ? cli(args) : await cliHere(args);
      expect(r.status, flags.join(' ')).toBe(2);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    // k8s mounts one volume: source and output must share a folder below /.
    // An output under another top-level folder than the sample's (a clone may sit in /tmp).
    const elsewhere = SAMPLE.startsWith('/tmp/') ? '/var/tmp/x.beton' : '/tmp/x.beton';
    const k = await cliHere(['build', SAMPLE, '-o', elsewhere, '--shards', '2', '--emit', 'k8s']);
    expect(k.status).toBe(2);
    expect(k.stderr).toMatch(/share no folder/);
    expect(existsSync(out)).toBe(false);
  });
});

describe('beton build --status', () => {
  it('each --shard build writes its progress file; failures are recorded; --wait ends when all are done', async () => {
    const shards = join(dir, 'status');
    mkdirSync(shards);
    const st0 = await cliHere(['build', '--status', shards]);
    expect(st0.status).toBe(1);
    expect(st0.stderr).toMatch(/no shard progress files.*--shards N/);
    const pending = await cliHere(['build', '--status', shards, '--shards', '2']);
    expect(pending.status).toBe(0);
    expect(pending.stdout).toMatch(/0\/2 shards done, 0 running, 2 pending, 0 failed/);
    const wait = await cliHere(['build', '--status', shards, '--shards', '2', '--wait', '--timeout', '1']);
    expect(wait.status).toBe(1);
    expect(wait.stderr).toMatch(/2 of 2 shards not done after 1 s/);

    const b0 = await cliHere(['build', SMALL, '-o', join(shards, 'shard-00000-of-00002.beton'), '--shard', '0/2', '--workers', '0']);
    expect(b0.status, b0.stderr).toBe(0);
    const p0 = JSON.parse(readFileSync(join(shards, 'shard-00000-of-00002.beton.progress.json'), 'utf8')) as ShardProgress;
    expect(p0).toMatchObject({ version: 1, shard: { index: 0, count: 2 }, state: 'done', done: 3, total: 3, written: 3, skipped: 0 });
    // Shard 1 fails on a broken image; its progress file says so, with the reason.
    const broken = join(dir, 'status-broken');
    mkdirSync(join(broken, 'a'), { recursive: true });
    cpSync(join(SAMPLE, 'circles/circles_00.jpg'), join(broken, 'a', 'ok.jpg'));
    writeFileSync(join(broken, 'a', 'zz-bad.jpg'), 'not a jpeg');
    const b1 = await cliHere(['build', broken, '-o', join(shards, 'shard-00001-of-00002.beton'), '--shard', '1/2', '--workers', '0']);
    expect(b1.status).toBe(1);
    const st = await cliHere(['build', '--status', shards]);
    expect(st.stdout).toMatch(/1\/2 shards done, 0 running, 0 pending, 1 failed/);
    expect(st.stdout).toMatch(/shard 1\/2 +FAILED .*zz-bad\.jpg/);

    // A retry that succeeds replaces the failure (as a scheduler's retry would).
    writeFileSync(join(broken, 'a', 'zz-bad.jpg'), readFileSync(join(SAMPLE, 'circles/circles_01.jpg')));
    const retry = ['build', broken, '-o', join(shards, 'shard-00001-of-00002.beton'), '--shard', '1/2', '--workers', '0'];
    expect((await cliHere(retry)).status).toBe(0);
    const done = await cliHere(['build', '--status', shards, '--wait', '--timeout', '5']);
    expect(done.status, done.stderr).toBe(0);
    expect(done.stdout).toMatch(/2\/2 shards done/);
  });

  it('a running shard that stopped updating is reported stale; files of another shard count are ignored', () => {
    const d = join(dir, 'stale');
    mkdirSync(d);
    const base = {
      version: 1,
      output: 'x',
      total: 10,
      written: 3,
      skipped: 0,
      samplesPerSec: 2,
      etaMs: 3500,
      startedAt: '2030-01-01T00:00:00.000Z',
      host: 'h',
      pid: 1,
    };
    writeFileSync(
      join(d, 'a.progress.json'),
      JSON.stringify({ ...base, shard: { index: 0, count: 2 }, state: 'running', done: 3, updatedAt: '2030-01-01T00:00:00.000Z' }),
    );
    writeFileSync(
      join(d, 'b.progress.json'),
      JSON.stringify({ ...base, shard: { index: 1, count: 2 }, state: 'running', done: 5, updatedAt: '2030-01-01T00:09:00.000Z' }),
    );
    writeFileSync(
      join(d, 'old.progress.json'),
      JSON.stringify({ ...base, shard: { index: 0, count: 7 }, state: 'done', done: 1, updatedAt: '2029-01-01T00:00:00.000Z' }),
    );
    writeFileSync(join(d, 'junk.progress.json'), '{"not":');
    const s = readShardsStatus(d, { now: Date.parse('2030-01-01T00:10:00.000Z') });
    expect(s.count).toBe(2);
    expect(s.shards.map((x) => [x.state, x.stale])).toEqual([
      ['running', true],
      ['running', false],
    ]);
    expect(s.items).toBe(8);
    expect(s.totalItems).toBe(20);
    expect(s.ignored).toEqual(['old.progress.json']);
  });
});
