import { chmodSync, existsSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readShardsStatus, type ShardsStatus } from '../writer/shard-progress.js';
import { jobName, k8sManifests, slurmScript, type ShardPlan } from './cluster-emit.js';
import { flagHelp } from './flags/flag-help.js';
import { switchFlag, valueFlag, type FlagTable, type FlagValues } from './flags/flag-table.js';
import { duration, integer, oneOf, path, text } from './flags/parsers.js';
import { UsageError } from './usage-error.js';

/** The flags of `beton build` that belong to sharded builds on a scheduler (docs/cluster.md). */
export const SHARDS_FLAGS = {
  shards: valueFlag('N', integer({ min: 1 }), [
    'with --emit: print the jobs that build N shards in parallel and merge',
    'them; with --status: the shard count when no progress file exists yet',
  ]),
  emit: valueFlag('slurm|k8s', oneOf(['slurm', 'k8s'] as const), [
    'slurm: a bash script that submits a job array and an afterok merge',
    'job; k8s: an Indexed Job, a merge Job and a ConfigMap (YAML)',
  ]),
  'emit-to': valueFlag('FILE', path(), 'write them to FILE instead of stdout'),
  'shards-dir': valueFlag('DIR', path(), 'where shards and progress files go (default OUT.shards/)'),
  image: valueFlag('IMG', text('a container image'), 'k8s: the container image (with beton on PATH)'),
  pvc: valueFlag('CLAIM', text('a volume claim'), 'k8s: the volume claim, mounted at the folder holding SOURCE and OUT'),
  status: valueFlag('DIR', path(), [
    'progress of the shards in DIR (each shard build writes',
    'SHARD.progress.json); --json prints it as JSON',
  ]),
  wait: switchFlag('with --status: block until every shard is done'),
  timeout: valueFlag('S', duration(), 'with --status --wait: give up after S seconds (exit 1)'),
} satisfies FlagTable;

export const SHARDS_HELP = `Sharded builds on a cluster (docs/cluster.md):
${flagHelp(SHARDS_FLAGS, 31)}`;

export type ShardsFlags = FlagValues<typeof SHARDS_FLAGS> & { json?: boolean | undefined };

/** Checks the flag combinations before any source is opened; returns whether this is an --emit run. */
export function checkShardsFlags(f: ShardsFlags, shard: unknown): boolean {
  const emit = f.emit !== undefined || f.shards !== undefined;
  if (!emit) {
    for (const k of ['emit-to', 'shards-dir', 'image', 'pvc', 'wait', 'timeout'] as const) {
      if (f[k] !== undefined)
        throw new UsageError(`--${k} applies to --shards N --emit slurm|k8s${k === 'wait' || k === 'timeout' ? ' or --status DIR' : ''}`);
    }
    return false;
  }
  if (f.emit === undefined || f.shards === undefined) throw new UsageError('--shards N and --emit slurm|k8s go together');
  if (shard !== undefined) throw new UsageError('--shard k/N builds one shard; --shards N --emit writes the jobs that build all of them');
  if (f.emit === 'slurm' && (f.image !== undefined || f.pvc !== undefined)) throw new UsageError('--image and --pvc apply to --emit k8s');
  return true;
}

/** The folder both paths live under (the volume to mount), or null if it is the root. */
function commonFolder(paths: readonly string[]): string | null {
  const parts = paths.map((p) => resolve(p).split(sep).filter(Boolean));
  const common: string[] = [];
  for (let i = 0; parts.every((p) => i < p.length - 1 && p[i] === parts[0]![i]); i++) common.push(parts[0]![i]!);
  return common.length ? sep + common.join(sep) : null;
}

/**
 * This process's way of running the CLI: node and the package's bin/beton.js, both
 * absolute (found by walking up: this module runs from dist/core/cli/ and, in tests, from
 * core/cli/). Falls back to `beton` on PATH.
 */
function thisBeton(): string[] {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    const bin = resolve(dir, 'bin/beton.js');
    if (existsSync(bin)) return [process.execPath, bin];
  }
  return ['beton'];
}

/** `--shards N --emit slurm|k8s`: the job files for a build config that already has its fields. */
export function emitShardJobs(
  config: Record<string, unknown> & { output: string; source: { path: string }; numWorkers?: number },
  baseDir: string,
  f: ShardsFlags,
): number {
  const n = f.shards!;
  const output = resolve(baseDir, config.output);
  const source = resolve(baseDir, config.source.path);
  const shardsDir = resolve(f['shards-dir'] ?? `${output}.shards`);
  // Absolute paths: the jobs run elsewhere, from another working directory.
  const { image: _image, shard: _shard, range, ...rest } = config as Record<string, unknown>;
  const plan: ShardPlan = {
    config: { ...rest, ...(range ? { range } : {}), source: { ...config.source, path: source }, output },
    output,
    shardsDir,
    count: n,
    cpus: Math.max(1, config.numWorkers ?? 4),
    name: jobName(output),
  };
  let text: string;
  if (f.emit === 'slurm') text = slurmScript(plan, thisBeton());
  else {
    const mountPath = commonFolder([source, output, shardsDir + sep + 'x']);
    if (!mountPath)
      throw new UsageError(
        `SOURCE (${source}), OUT and the shards folder share no folder to mount the volume at; put them under one folder`,
      );
    text = k8sManifests(plan, { image: f.image ?? 'beton-studio:latest', pvc: f.pvc ?? 'beton-data', mountPath });
  }
  if (f['emit-to']) {
    const file = resolve(f['emit-to']);
    writeFileSync(file, text);
    if (f.emit === 'slurm') chmodSync(file, 0o755);
    process.stderr.write(`wrote ${file}: ${n} shard jobs of ${output}, shards in ${shardsDir}\n`);
  } else process.stdout.write(text);
  return 0;
}

const fmtTime = (ms: number | null): string => {
  if (ms === null || !Number.isFinite(ms)) return '?';
  const s = Math.max(0, Math.round(ms / 1000));
  return s >= 3600
    ? `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`
    : `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
};

export function formatShardsStatus(s: ShardsStatus, now = Date.now()): string {
  const pct = s.totalItems ? ` (${((100 * s.items) / s.totalItems).toFixed(0)}%)` : '';
  const head = `${s.dir}: ${s.done}/${s.count} shards done, ${s.running} running, ${s.pending} pending, ${s.failed} failed; ${s.items}${s.totalItems !== null ? `/${s.totalItems}` : ''} samples${pct}, ${s.samplesPerSec.toFixed(1)} samples/s, ETA ${s.done === s.count ? '0:00' : fmtTime(s.etaMs)}`;
  const lines = s.shards.map(({ index, state, stale, progress: p }) => {
    const id = `  shard ${index}/${s.count}`.padEnd(14 + 2 * String(s.count).length);
    if (!p) return `${id} pending`;
    const count = `${p.done}/${p.total ?? '?'}`;
    const age = `updated ${fmtTime(now - Date.parse(p.updatedAt))} ago on ${p.host} (pid ${p.pid})`;
    if (state === 'failed') return `${id} FAILED   ${count}  ${age}: ${p.error ?? 'no reason recorded'}`;
    if (state === 'done')
      return `${id} done     ${count}${p.skipped ? ` (${p.skipped} skipped)` : ''}  ${p.samplesPerSec.toFixed(1)} samples/s`;
    return `${id} running  ${count}  ${p.samplesPerSec.toFixed(1)} samples/s ETA ${fmtTime(p.etaMs)}  ${age}${stale ? '  STALE: no update for over 5 min, the process may have died' : ''}`;
  });
  if (s.ignored.length) lines.push(`  (ignored, another shard count: ${s.ignored.join(', ')})`);
  return [head, ...lines].join('\n') + '\n';
}

/**
 * `beton build --status DIR`: the shards' progress. With --wait it polls until every shard
 * is done (exit 0), printing when something changed, or until --timeout (exit 1). Failed
 * shards do not end the wait: a scheduler may retry them (Kubernetes does).
 */
export async function shardStatusCommand(dirArg: string, f: ShardsFlags, pollMs = 2000): Promise<number> {
  const dir = resolve(dirArg);
  const n = f.shards;
  const timeoutS = f.timeout ?? null;
  const read = (): ShardsStatus => {
    if (!existsSync(dir) && f.wait) return readShardsStatusOrPending(dir, n);
    if (!statSync(dir).isDirectory()) throw new UsageError(`--status expects the shards folder, got the file ${dir}`);
    return readShardsStatus(dir, n !== undefined ? { count: n } : {});
  };
  const print = (s: ShardsStatus): void => {
    process.stdout.write(f.json ? JSON.stringify(s) + '\n' : formatShardsStatus(s));
  };
  let s = read();
  if (!f.wait) {
    if (s.count === 0) {
      process.stderr.write(
        `beton build --status: no shard progress files (*.progress.json) in ${dir} yet; give --shards N to list the pending shards\n`,
      );
      return 1;
    }
    print(s);
    return 0;
  }
  if (s.count === 0) throw new UsageError('--wait needs --shards N when no shard has started yet');
  const t0 = Date.now();
  let last = '';
  for (;;) {
    const key = s.shards.map((x) => `${x.state}${x.stale}`).join(',');
    if (key !== last) {
      print(s);
      last = key;
    }
    if (s.done === s.count) return 0;
    if (timeoutS !== null && Date.now() - t0 > timeoutS * 1000) {
      process.stderr.write(`beton build --status: ${s.count - s.done} of ${s.count} shards not done after ${timeoutS} s\n`);
      return 1;
    }
    await new Promise((r) => setTimeout(r, pollMs));
    s = read();
  }
}

/** Before the first shard creates the folder, every shard is pending. */
function readShardsStatusOrPending(dir: string, n: number | undefined): ShardsStatus {
  const c = n ?? 0;
  return {
    dir,
    count: c,
    shards: Array.from({ length: c }, (_, index) => ({ index, state: 'pending', stale: false, progress: null })),
    done: 0,
    running: 0,
    pending: c,
    failed: 0,
    items: 0,
    totalItems: null,
    samplesPerSec: 0,
    etaMs: null,
    ignored: [],
  };
}
