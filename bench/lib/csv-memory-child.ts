/**
 * One measured build of the csv-memory benchmark, in a process of its own (forked by
 * bench/csv-memory.ts with --expose-gc), so that its RSS starts from a clean process
 * and the kernel's peak (ru_maxrss) belongs to this build alone.
 *
 * Runs buildDataset on the CSV, sampling process.memoryUsage() every `intervalMs` and at
 * each tenth of the progress, then opens the output with Reader and checks it against
 * csvRow(). Sends one ChildResult to the parent over IPC.
 */
import { rm } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { Reader, buildDataset, parseBuildConfig, type FieldConfig, type WriteProgress } from '../../core/index.js';
import { withCpu } from './cpu.js';
import { csvRow } from './csv-table.js';

export interface ChildSpec {
  csvPath: string;
  rows: number;
  seed: number;
  /** auto: buildDataset as a user calls it; known: with range [0, rows], so the length is known up front. */
  lengthMode: 'auto' | 'known';
  fields: 'inferred' | 'given';
  numWorkers: number | null;
  intervalMs: number;
  outPath: string;
  keep: boolean;
}

export interface Mem {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
}

export interface Checkpoint {
  /** Tenths of the progress: 1 = 10 %. */
  tenth: number;
  done: number;
  mem: Mem;
  /** Main-thread heapUsed right after a full GC: what is really retained. */
  heapAfterGc: number | null;
}

export interface ChildResult {
  ok: true;
  rows: number;
  lengthMode: 'auto' | 'known';
  /** What the writer did: 'direct' (length known: metadata to its final offset) or 'spill' (length unknown: temp files, relocated at the end). */
  writerPath: 'direct' | 'spill';
  /** The total progress reported (null = the source's length was unknown). */
  progressTotal: number | null;
  fields: FieldConfig[];
  numWorkers: number;
  buildMs: number;
  writerSamplesPerSec: number;
  fileSize: number;
  numSamples: number;
  cores: number;
  otherCores: number | null;
  baseline: Mem;
  afterBuild: Mem;
  /** Peak of the 100 ms samples (and the checkpoints). */
  peakSampled: Mem;
  /** The kernel's peak RSS of this process (ru_maxrss), bytes: catches peaks between samples. */
  maxRss: number;
  checkpoints: Checkpoint[];
  /** RSS of every periodic sample, in build order, bytes. */
  rssSeries: number[];
  heapSeries: number[];
  samples: number;
  /** Longest gap between two periodic samples (a long synchronous stretch on the main thread). */
  maxGapMs: number;
  verify: { ok: boolean; checked: number; problems: string[]; openMs: number; rssAfterOpen: number };
}

export type ChildMessage = ChildResult | { ok: false; error: string };

const GIVEN_FIELDS: FieldConfig[] = [
  { name: 'id', type: 'int' },
  { name: 'x', type: 'float' },
  { name: 'y', type: 'float' },
  { name: 'label', type: 'int' },
  { name: 'tag', type: 'json' },
];

function mem(): Mem {
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, arrayBuffers: m.arrayBuffers };
}

function maxMem(a: Mem, b: Mem): Mem {
  return {
    rss: Math.max(a.rss, b.rss),
    heapUsed: Math.max(a.heapUsed, b.heapUsed),
    heapTotal: Math.max(a.heapTotal, b.heapTotal),
    external: Math.max(a.external, b.external),
    arrayBuffers: Math.max(a.arrayBuffers, b.arrayBuffers),
  };
}

async function measure(spec: ChildSpec): Promise<ChildResult> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const baseline = mem();
  let peak = baseline;
  const rssSeries: number[] = [];
  const heapSeries: number[] = [];
  let last = performance.now();
  let maxGapMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    maxGapMs = Math.max(maxGapMs, now - last);
    last = now;
    const m = mem();
    peak = maxMem(peak, m);
    rssSeries.push(m.rss);
    heapSeries.push(m.heapUsed);
  }, spec.intervalMs);

  const checkpoints: Checkpoint[] = [];
  let nextTenth = 1;
  let progressTotal: number | null | undefined;
  const onProgress = (p: WriteProgress): void => {
    progressTotal = p.total;
    // The generator knows the row count even when the source does not (spill path).
    while (nextTenth <= 9 && p.done >= (spec.rows * nextTenth) / 10) {
      const m = mem();
      peak = maxMem(peak, m);
      let heapAfterGc: number | null = null;
      if (gc && (nextTenth === 1 || nextTenth === 5 || nextTenth === 9)) {
        gc();
        heapAfterGc = process.memoryUsage().heapUsed;
      }
      checkpoints.push({ tenth: nextTenth, done: p.done, mem: m, heapAfterGc });
      nextTenth++;
    }
  };

  const parsed = parseBuildConfig({
    source: { type: 'table', path: spec.csvPath },
    output: spec.outPath,
    ...(spec.fields === 'given' ? { fields: GIVEN_FIELDS } : {}),
    ...(spec.numWorkers !== null ? { numWorkers: spec.numWorkers } : {}),
    ...(spec.lengthMode === 'known' ? { range: [0, spec.rows] } : {}),
  });
  if (!parsed.ok) throw new Error(`build config rejected: ${parsed.errors.join('; ')}`);
  let report;
  let cpu;
  try {
    cpu = await withCpu(() => buildDataset(parsed.value, { onProgress }));
    report = cpu.value;
  } finally {
    clearInterval(timer);
  }
  const afterBuild = mem();
  peak = maxMem(peak, afterBuild);
  const maxRss = process.resourceUsage().maxRSS * 1024;

  // The fields actually written, as the output's descriptors name them.
  const verify = await verifyOutput(spec);
  if (!spec.keep) await rm(spec.outPath, { force: true });
  return {
    ok: true,
    rows: spec.rows,
    lengthMode: spec.lengthMode,
    writerPath: progressTotal === null ? 'spill' : 'direct',
    progressTotal: progressTotal ?? null,
    fields: verify.fields,
    numWorkers: spec.numWorkers ?? availableParallelism(),
    buildMs: cpu.wallMs,
    writerSamplesPerSec: report.samplesPerSec,
    fileSize: report.fileSize,
    numSamples: report.numSamples,
    cores: cpu.cores,
    otherCores: cpu.otherCores,
    baseline,
    afterBuild,
    peakSampled: peak,
    maxRss,
    checkpoints,
    rssSeries,
    heapSeries,
    samples: rssSeries.length,
    maxGapMs,
    verify: verify.result,
  };
}

/**
 * Opens the output with Reader and checks numSamples, the field types and a few rows
 * (first, last, middle and seeded random ones) against the generator.
 */
async function verifyOutput(spec: ChildSpec): Promise<{ fields: FieldConfig[]; result: ChildResult['verify'] }> {
  const problems: string[] = [];
  const t0 = performance.now();
  const reader = await Reader.open(spec.outPath);
  const openMs = performance.now() - t0;
  const rssAfterOpen = process.memoryUsage().rss;
  const fields = reader.fields.map((f) => ({ name: f.name, type: f.field.type }) as FieldConfig);
  let checked = 0;
  try {
    const types = fields.map((f) => `${f.name}:${f.type}`).join(',');
    if (types !== GIVEN_FIELDS.map((f) => `${f.name}:${f.type}`).join(',')) problems.push(`fields are ${types}`);
    if (reader.numSamples !== spec.rows) problems.push(`numSamples ${reader.numSamples}, expected ${spec.rows}`);
    const n = Math.min(reader.numSamples, spec.rows);
    const picks = new Set<number>([0, 1, n >> 1, n - 2, n - 1]);
    for (let k = 0; k < 8; k++) picks.add(Math.floor((((k * 2654435761) % 4294967296) / 4294967296) * n));
    for (const i of [...picks].filter((i) => i >= 0 && i < n).sort((a, b) => a - b)) {
      const want = csvRow(spec.seed, i);
      const got = reader.read(i);
      const expect: Record<string, unknown> = {
        id: BigInt(want.id),
        x: Number(want.x),
        y: Number(want.y),
        label: BigInt(want.label),
        tag: want.tag,
      };
      for (const [k, v] of Object.entries(expect)) {
        if (got[k] !== v) problems.push(`row ${i} ${k}: got ${String(got[k])}, expected ${String(v)}`);
      }
      checked++;
    }
  } finally {
    reader.close();
  }
  return { fields, result: { ok: problems.length === 0, checked, problems: problems.slice(0, 10), openMs, rssAfterOpen } };
}

const spec = JSON.parse(process.argv[2] ?? 'null') as ChildSpec | null;
if (!spec || typeof process.send !== 'function') {
  console.error('csv-memory-child: run by bench/csv-memory.ts (forked with a JSON spec), not directly');
  process.exitCode = 2;
} else {
  // Disconnecting after the send lets the process exit (an open IPC channel would keep it alive).
  const reply = (m: ChildMessage): void => void process.send!(m, () => process.disconnect());
  measure(spec).then(reply, (e: unknown) => reply({ ok: false, error: e instanceof Error ? (e.stack ?? e.message) : String(e) }));
}
