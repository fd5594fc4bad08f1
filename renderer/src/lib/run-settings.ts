/** A run's settings as rows of text, and two runs' settings side by side: pure functions. */
import { LOADER_DEFAULTS, RUN_KINDS } from '../../../core/api/constants.js';
import { formatBytes } from './format.js';
import type { ProfileRunView } from './types.js';

/** "2× NVIDIA H100 80GB HBM3 (80 GiB)": alike GPUs counted once, each kind with its memory. */
export function formatGpus(gpus: ReadonlyArray<{ name: string; memoryTotalMiB: number }>): string {
  if (!gpus.length) return 'none';
  const kinds = new Map<string, number>();
  for (const g of gpus) {
    const k = `${g.name} (${Math.round(g.memoryTotalMiB / 1024)} GiB)`;
    kinds.set(k, (kinds.get(k) ?? 0) + 1);
  }
  return [...kinds].map(([k, n]) => (n > 1 ? `${n}× ${k}` : k)).join(', ');
}

export type SettingGroup = 'Plan' | 'Machine' | 'Dataset';

export interface Setting {
  /** Stable across runs: what the diff matches on ("plan.workers"). */
  key: string;
  group: SettingGroup;
  label: string;
  value: string;
}

const PLAN_LABELS: Record<string, string> = {
  file: 'Dataset file',
  workers: 'Workers',
  batchSizes: 'Batch sizes',
  orders: 'Orders',
  osCache: 'Cache',
  decoder: 'Decoder',
  flip: 'Random flip',
  fastDecode: 'Fast decode (reduced DCT)',
  batchesAhead: 'Batches ahead',
  secondsPerPoint: 'Seconds per point',
  warmupBatches: 'Warm-up batches',
  command: 'Training command',
  throughputRegex: 'Throughput pattern',
};

/** A plan value in words; the cache flags say which cache rather than true/false. */
function planValue(key: string, v: unknown): string {
  if (key === 'osCache' && Array.isArray(v)) return v.map((x) => (x ? 'OS page cache' : 'process cache')).join(', ');
  if (key === 'orders' && Array.isArray(v)) return v.map((x) => String(x).replace('_', '-')).join(', ');
  if (Array.isArray(v)) return v.map(String).join(', ');
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (v === null || v === undefined) return '—';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

/** Every setting of a run: the plan as stored (known keys first, in a fixed order), the machine and the dataset. */
export function runSettings(run: ProfileRunView): Setting[] {
  const out: Setting[] = [{ key: 'kind', group: 'Plan', label: 'Kind', value: RUN_KINDS[run.kind]?.label ?? run.kind }];
  // Shown key by key, whatever the plan's kind: read as a plain record.
  const plan = run.plan as unknown as Record<string, unknown>;
  const keys = [
    ...Object.keys(PLAN_LABELS).filter((k) => k in plan),
    ...Object.keys(plan)
      .filter((k) => !(k in PLAN_LABELS))
      .sort(),
  ];
  // Options a plan left out ran with their defaults: said so, so two runs still line up.
  if (run.kind === 'sweep') for (const k of ['fastDecode', 'batchesAhead']) if (!keys.includes(k)) keys.push(k);
  for (const k of keys) {
    const v = plan[k];
    const value =
      v === undefined
        ? k === 'batchesAhead'
          ? `${LOADER_DEFAULTS.batchesAhead} (default)`
          : k === 'fastDecode'
            ? 'no (default)'
            : '—'
        : planValue(k, v);
    out.push({ key: `plan.${k}`, group: 'Plan', label: PLAN_LABELS[k] ?? k, value });
  }
  const m = run.machine;
  if (m) {
    out.push(
      { key: 'machine.hostname', group: 'Machine', label: 'Host', value: m.hostname },
      { key: 'machine.cpuModel', group: 'Machine', label: 'CPU', value: m.cpuModel },
      { key: 'machine.cores', group: 'Machine', label: 'Logical CPUs', value: String(m.cores) },
      { key: 'machine.ramBytes', group: 'Machine', label: 'Memory', value: formatBytes(m.ramBytes) },
      { key: 'machine.os', group: 'Machine', label: 'OS', value: m.os },
      { key: 'machine.node', group: 'Machine', label: 'Node', value: m.node },
      { key: 'machine.gpus', group: 'Machine', label: 'GPUs', value: formatGpus(m.gpus) },
    );
  }
  const d = run.dataset;
  if (d) {
    out.push(
      { key: 'dataset.path', group: 'Dataset', label: 'Path', value: d.path },
      { key: 'dataset.numSamples', group: 'Dataset', label: 'Samples', value: String(d.numSamples) },
      { key: 'dataset.sizeBytes', group: 'Dataset', label: 'Size', value: formatBytes(d.sizeBytes) },
      {
        key: 'dataset.content',
        group: 'Dataset',
        label: 'Content (sha256)',
        value: d.contentSha256 ? `${d.contentSha256.slice(0, 12)}…` : 'not recorded',
      },
    );
  }
  return out;
}

export interface SettingDiffRow {
  key: string;
  group: SettingGroup;
  label: string;
  a: string;
  b: string;
  differs: boolean;
}

/** A's and B's settings matched by key (A's order, then what only B has); a side without the setting shows "—". */
export function settingsDiff(a: ProfileRunView, b: ProfileRunView): SettingDiffRow[] {
  const sa = runSettings(a);
  const sb = new Map(runSettings(b).map((s) => [s.key, s]));
  const rows: SettingDiffRow[] = sa.map((s) => {
    const other = sb.get(s.key);
    sb.delete(s.key);
    return { key: s.key, group: s.group, label: s.label, a: s.value, b: other?.value ?? '—', differs: other?.value !== s.value };
  });
  for (const s of sb.values()) rows.push({ key: s.key, group: s.group, label: s.label, a: '—', b: s.value, differs: true });
  return rows;
}
