/** The loader bench's report: medians per configuration, yardsticks, the grid table, the verdict and the JSON record. */
import { availableParallelism, cpus } from 'node:os';
import sharp from 'sharp';
import { describeDecodePath, decodePath } from '../../core/native/turbo.js';
import { type ImageNetLike } from '../generate-imagenet-like.js';
import { MAX_RESOLUTION, SMART_THRESHOLD, type LoaderDataset, type LoaderMode } from './loader-data.js';
import { type BreakdownResult, type LimitResult } from './loader-limit.js';
import { max, median, min, round } from './stats.js';
import { renderTable } from './table.js';
import type { ForeignLoad } from './loader-grid.js';
import {
  type Order,
  type Cache,
  OUTPUT_SIZE,
  SEED,
  QUIET,
  PROBE_STRIDE,
  TARGET_LIMIT,
  TARGET_NAIVE,
  type Config,
  type EpochRecord,
  type LoaderRun,
  codeVersion,
  fmt,
  configKey,
  type Records,
  type ViewName,
  type Cell,
  type View,
  isQuiet,
  medianOrNull,
} from './loader-grid.js';

export function summarize(cfg: Config, rec: Records, name: ViewName): View {
  const keep = <T extends { other?: number | null; otherCores?: number | null }>(xs: T[]): T[] =>
    name === 'all' ? xs : xs.filter((x) => isQuiet(x.other ?? x.otherCores ?? null));
  const limit = new Map([...rec.limits].map(([m, l]) => [m, medianOrNull(keep(l).map((x) => x.imagesPerSec))]));
  const parallel = new Map([...rec.parallel].map(([k, l]) => [k, medianOrNull(keep(l).map((x) => x.imagesPerSec))]));
  const naive = new Map([...rec.naive].map(([k, r]) => [k, medianOrNull(keep(r.timed).map((e) => e.imagesPerSec))]));
  const ips = (r: LoaderRun | undefined): number | null => (r ? medianOrNull(keep(r.timed).map((e) => e.imagesPerSec)) : null);
  const cells: Cell[] = [];
  for (const r of rec.runs.values()) {
    const timed = keep(r.timed);
    const v = ips(r);
    if (v === null) continue;
    // Each epoch against the limit probed around its configuration; the parallel limit as
    // that times the parallel efficiency measured in the same repetitions.
    const eff = r.workers > 1 ? medianOrNull((rec.parallel.get(`${r.mode}|${r.workers}`) ?? []).map((x) => x.efficiency)) : 1;
    const paired = timed.filter((e) => e.pairedLimit !== null);
    const overLimit = medianOrNull(paired.map((e) => e.imagesPerSec / (e.pairedLimit! * r.workers)));
    const nv = naive.get(`${r.batchSize}|${r.workers}`) ?? null;
    const w1 = cfg.workers.includes(1) && r.workers > 1 ? ips(rec.runs.get(configKey(r.mode, r.batchSize, r.order, r.cache, 1))) : null;
    const others = timed.map((e) => e.otherCores).filter((x): x is number => x !== null);
    cells.push({
      mode: r.mode,
      batchSize: r.batchSize,
      order: r.order,
      cache: r.cache,
      workers: r.workers,
      imagesPerSec: v,
      warmupPerSec: medianOrNull(keep(r.warmup).map((e) => e.imagesPerSec)),
      epochs: timed.length,
      of: r.timed.length,
      busy: median(timed.map((e) => e.busy)),
      cores: median(timed.map((e) => e.cores)),
      other: others.length ? median(others) : null,
      overLimit,
      overParallel: overLimit === null || eff === null ? null : overLimit / eff,
      overNaive: nv === null ? null : v / nv,
      overW1: w1 === null ? null : v / w1,
    });
  }
  return { name, limit, parallel, naive, cells };
}

export const cellText = (v: number | null, digits = 2): string => (v === null ? '-' : fmt(v, digits));

export function printReport(
  cfg: Config,
  ds: ImageNetLike,
  files: Map<LoaderMode, LoaderDataset>,
  views: View[],
  rec: Records,
  breakdowns: Map<LoaderMode, BreakdownResult>,
  noise: ForeignLoad,
  totalS: number,
): string {
  const m = ds.manifest;
  const L: string[] = [];
  L.push(
    `loader benchmark: ${m.count} images (${m.minSide}-${m.maxSide} px JPEG q${m.quality} sources) stored with maxResolution ${MAX_RESOLUTION}:`,
  );
  for (const f of files.values())
    L.push(
      `  ${f.mode.padEnd(5)} ${f.mix.jpg} jpg / ${f.mix.raw} raw, ${(f.fileSize / 1e6).toFixed(1)} MB${f.mode === 'smart' ? ` (smartThreshold ${SMART_THRESHOLD} B = 256x224x3)` : ''}`,
    );
  L.push(
    `  pipeline: image RandomResizedCrop(${OUTPUT_SIZE}) + RandomHorizontalFlip + ToCHW (uint8), label IntDecoder; seed ${SEED}, dropLast`,
  );
  L.push(`  decode path: ${describeDecodePath()}`);
  L.push(`  code: ${codeVersion()}`);
  L.push(
    `  ${cfg.reps} repetition(s) x ${cfg.epochs} epochs per configuration (first = warm-up, reported apart); img/s = median of the ${cfg.reps * (cfg.epochs - 1)} timed epochs`,
  );
  L.push(
    `  ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown CPU'}), node ${process.version}, sharp ${sharp.versions.sharp} / libvips ${sharp.versions.vips}`,
  );
  L.push('');
  L.push(...yardsticks(cfg, views, rec));
  // The quiet table only when some timed segment was not quiet (else it repeats the first).
  const loaded = (noise.summary()?.max ?? 0) > QUIET;
  for (const v of loaded ? views : views.slice(0, 1)) {
    L.push('');
    L.push(...grid(cfg, v));
  }
  if (breakdowns.size > 0) {
    L.push('');
    L.push(...breakdownReport(cfg, views[0]!, breakdowns));
  }
  L.push('');
  const all = views[0]!.cells;
  const spread = (c: Cell): number => {
    const t = rec.runs.get(configKey(c.mode, c.batchSize, c.order, c.cache, c.workers))!.timed.map((e) => e.imagesPerSec);
    return (max(t) - min(t)) / c.imagesPerSec;
  };
  const worst = all.reduce((a, b) => (spread(b) > spread(a) ? b : a), all[0]!);
  if (worst)
    L.push(
      `epoch-to-epoch spread, (max-min)/median: worst ${fmt(spread(worst) * 100)}% (${worst.mode} bs ${worst.batchSize} ${worst.order} ${worst.cache} w${worst.workers})`,
    );
  const other = noise.summary();
  if (other) {
    L.push(
      `other load during timed segments (other processes + hypervisor steal): median ${fmt(other.median, 2)}, max ${fmt(other.max, 2)} cores (${other.worst}); ${other.overQuarter}/${other.segments} segments above ${QUIET}`,
    );
    if (other.max > QUIET)
      L.push(
        '  WARNING: the machine was not idle; segments that shared it are slower (medians damp, not remove, this; see the quiet table), and 2-worker runs suffer most on 2 cores',
      );
  }
  L.push(`total benchmark time ${fmt(totalS, 1)} s`);
  return L.join('\n');
}

export function yardsticks(cfg: Config, views: View[], rec: Records): string[] {
  const [all, quiet] = views as [View, View];
  const L: string[] = [`yardsticks (medians over repetitions; quiet = only runs with other load <= ${QUIET} core):`];
  const rows: string[][] = [];
  for (const [mode, l] of rec.limits) {
    const med = (f: (x: LimitResult) => number): number => median(l.map(f));
    rows.push([
      `limit ${mode}: decode+crop+flip/CHW, 1 thread`,
      fmt(all.limit.get(mode)!),
      cellText(quiet.limit.get(mode) ?? null, 0),
      `decode only ${fmt(med((x) => x.decodeOnlyPerSec))}/s; µs/img: crop params ${med((x) => x.us.params).toFixed(1)}, decode+resize ${med((x) => x.us.decode).toFixed(0)}, native flip+CHW ${med((x) => x.us.copy).toFixed(0)}${cfg.strict ? '; strict' : ''}`,
    ]);
    const probes = rec.probes.get(mode)!;
    if (probes.length) {
      rows.push([
        `limit ${mode}: probes between configs`,
        fmt(median(probes)),
        '',
        `${probes.length} probes on every ${PROBE_STRIDE}th image, range ${fmt(min(probes))}-${fmt(max(probes))}: the machine's drift; /limit pairs each config with its neighbours`,
      ]);
    }
    for (const [k, p] of rec.parallel) {
      if (!k.startsWith(`${mode}|`)) continue;
      const t = p[0]!.threads;
      rows.push([
        `limit ${mode}: ${t} threads at once`,
        fmt(all.parallel.get(k)!),
        cellText(quiet.parallel.get(k) ?? null, 0),
        `${fmt(median(p.map((x) => x.efficiency)), 2)} of ${t} x one thread (what the machine gives ${t} threads)`,
      ]);
    }
  }
  for (const [k, r] of rec.naive) {
    const v = all.naive.get(k)!;
    rows.push([
      `naive bs ${r.batchSize}, ${r.workers} worker${r.workers > 1 ? 's' : ''}`,
      fmt(v),
      cellText(quiet.naive.get(k) ?? null, 0),
      `${fmt(v / r.workers)}/s per worker; readFile + sharp metadata/extract/resize/flop + CHW collate, ${fmt(median(r.timed.map((e) => e.cores)), 2)} cores busy`,
    ]);
  }
  L.push(renderTable(['yardstick', 'img/s', 'quiet', 'notes'], rows));
  return L;
}

export function grid(cfg: Config, v: View): string[] {
  const L: string[] = [];
  if (v.name === 'all') {
    L.push(
      `our loader, all timed epochs (img/s medians; /limit = ours / (limit x workers), target >= ${TARGET_LIMIT}, each epoch against the limit probed around its config;`,
    );
    L.push(`/plim = /limit / the parallel efficiency of that many threads at once (ours against the limit on that many threads);`);
    L.push(`/naive = ours / naive at the same batch size and workers, target >= ${TARGET_NAIVE}; 2w/1w: linear = 2):`);
  } else {
    L.push(
      `our loader, quiet epochs only (other load <= ${QUIET} core; ratios against quiet yardsticks; '-' = no quiet run; n = quiet epochs / all):`,
    );
  }
  const ws = cfg.workers;
  const headers = ['mode', 'batch', 'order', 'osCache'];
  for (const w of ws)
    headers.push(
      `w${w} img/s`,
      `w${w} warm`,
      `w${w}/limit`,
      ...(w > 1 ? [`w${w}/plim`] : []),
      ...(cfg.naive ? [`w${w}/naive`] : []),
      `w${w} busy`,
    );
  const scaled = ws.includes(1) ? ws.filter((w) => w > 1) : [];
  for (const w of scaled) headers.push(`${w}w/1w`);
  headers.push(v.name === 'all' ? 'other load' : 'n');
  const rows: string[][] = [];
  const groups: Array<[LoaderMode, number, Order, Cache]> = [];
  for (const mode of cfg.modes)
    for (const bs of cfg.batchSizes) for (const order of cfg.orders) for (const cache of cfg.caches) groups.push([mode, bs, order, cache]);
  for (const [mode, bs, order, cache] of groups) {
    const g = v.cells.filter((c) => c.mode === mode && c.batchSize === bs && c.order === order && c.cache === cache);
    const row = [mode, String(bs), order, cache];
    for (const w of ws) {
      const c = g.find((x) => x.workers === w);
      const width = 4 + (w > 1 ? 1 : 0) + (cfg.naive ? 1 : 0);
      if (!c) {
        row.push(...Array<string>(width).fill('-'));
        continue;
      }
      row.push(
        fmt(c.imagesPerSec),
        c.warmupPerSec === null ? '-' : fmt(c.warmupPerSec),
        cellText(c.overLimit),
        ...(w > 1 ? [cellText(c.overParallel)] : []),
        ...(cfg.naive ? [cellText(c.overNaive)] : []),
        `${fmt(c.busy * 100)}%`,
      );
    }
    for (const w of scaled) row.push(cellText(g.find((x) => x.workers === w)?.overW1 ?? null));
    if (v.name === 'all') {
      const others = g.map((x) => x.other).filter((x): x is number => x !== null);
      row.push(others.length ? fmt(max(others), 2) : '');
    } else row.push(g.map((c) => `${c.epochs}/${c.of}`).join(',') || '0');
    rows.push(row);
  }
  L.push(renderTable(headers, rows));
  if (v.name === 'all')
    L.push(
      "  busy = loader workers' busy time / (wall x workers), the rest idle (message round trips, dispatch, epoch ends); other load = max over the row of each config's median, in cores",
    );
  L.push(...verdict(cfg, v));
  return L;
}

export function verdict(cfg: Config, v: View): string[] {
  const L: string[] = [`targets (${v.name === 'all' ? 'all epochs' : 'quiet epochs'}):`];
  const range = (xs: number[]): string =>
    xs.length ? `range ${fmt(min(xs), 2)}-${fmt(max(xs), 2)}, median ${fmt(median(xs), 2)}` : 'no data';
  for (const w of cfg.workers) {
    const ol = v.cells.filter((c) => c.workers === w && c.overLimit !== null).map((c) => c.overLimit!);
    L.push(
      `  our/limit >= ${TARGET_LIMIT} at ${w} worker${w > 1 ? 's' : ''}: ${ol.filter((x) => x >= TARGET_LIMIT).length}/${ol.length} configs (${range(ol)})`,
    );
    if (w > 1) {
      const op = v.cells.filter((c) => c.workers === w && c.overParallel !== null).map((c) => c.overParallel!);
      L.push(
        `    against the ${w}-thread limit measured at once (what this machine allows): ${op.filter((x) => x >= TARGET_LIMIT).length}/${op.length} configs >= ${TARGET_LIMIT} (${range(op)})`,
      );
    }
  }
  const sc = v.cells.filter((c) => c.overW1 !== null).map((c) => c.overW1!);
  if (sc.length) L.push(`  worker scaling 2w/1w (linear = 2.00): ${range(sc)}`);
  const nv = v.cells.filter((c) => c.overNaive !== null).map((c) => c.overNaive!);
  if (nv.length)
    L.push(`  our/naive >= ${TARGET_NAIVE}: ${nv.filter((x) => x >= TARGET_NAIVE).length}/${nv.length} configs (${range(nv)})`);
  return L;
}

/**
 * Where a worker's time goes, per image: the limit's steps and the loader's per-sample code,
 * timed in one interleaved loop, then the w1 loader runs' measured busy and wall time.
 */
export function breakdownReport(cfg: Config, v: View, breakdowns: Map<LoaderMode, BreakdownResult>): string[] {
  const L: string[] = [];
  L.push(
    "where a worker's time goes, µs per image, one thread: 'loader' = decode-worker.ts runSample rebuilt from core pieces and timed step by step,",
  );
  L.push("'limit' = the limit's steps, in the same loop (interleaved sample by sample, so both see the same machine):");
  const modes = [...breakdowns.keys()];
  const headers = ['step', ...modes.flatMap((m) => [`${m} limit`, `${m} loader`])];
  const line = (label: string, f: (b: BreakdownResult) => [number | null, number | null], digits = 1): string[] => [
    label,
    ...modes.flatMap((m) => f(breakdowns.get(m)!).map((x) => (x === null ? '' : x.toFixed(digits)))),
  ];
  const stage = breakdowns.values().next().value?.stage ?? 'fused stage';
  const rows = [
    line('metadata view (fieldMetadata)', (b) => [null, b.us.metadata]),
    line('heap ref (heapRef + mmap view)', (b) => [null, b.us.heapRef]),
    line('rng creation (limit: + crop params)', (b) => [b.limit.params, b.us.rng]),
    line('decode+crop+resize (loader: decoder.decode)', (b) => [b.limit.decode, b.us.decode]),
    line(`flip+CHW (loader: ${stage})`, (b) => [b.limit.copy, b.us.pixelStage]),
    line('label (IntDecoder: metadata, ref, rng, write)', (b) => [null, b.us.label]),
    line('row views (viewOf x2)', (b) => [null, b.us.rowViews]),
    line('total', (b) => [b.limit.total, b.us.total]),
    line('limit / loader (this loop)', (b) => [null, b.limit.total / b.us.total], 2),
  ];
  if (cfg.workers.includes(1)) {
    const w1 = (mode: LoaderMode): Cell[] => v.cells.filter((c) => c.mode === mode && c.workers === 1);
    rows.push([
      'loader w1 runs: worker busy per image (median)',
      ...modes.flatMap((m) => ['', fmt(median(w1(m).map((c) => (c.busy * 1e6) / c.imagesPerSec)), 1)]),
    ]);
    rows.push([
      'loader w1 runs: wall per image (median)',
      ...modes.flatMap((m) => ['', fmt(median(w1(m).map((c) => 1e6 / c.imagesPerSec)), 1)]),
    ]);
  }
  L.push(renderTable(headers, rows));
  L.push(
    "  limit's crop params = 2 rngs + randomResizedCrop; the loader draws its crop inside decoder.decode and the flip inside the stage",
  );
  // Drift-free estimate: per-sample work ratio from the interleaved loop, times the share of
  // wall time the workers were busy (the rest is idle: messages, dispatch, epoch ends).
  for (const w of cfg.workers) {
    const parts = modes.map((m) => {
      const b = breakdowns.get(m)!;
      const busy = medianOrNull(v.cells.filter((c) => c.mode === m && c.workers === w).map((c) => c.busy));
      return busy === null
        ? `${m} -`
        : `${m} ${fmt((b.limit.total / b.us.total) * busy, 2)} (${fmt(b.limit.total / b.us.total, 2)} x busy ${fmt(busy * 100)}%)`;
    });
    L.push(
      `  drift-free estimate of our/${w > 1 ? 'plim' : 'limit'} at ${w} worker${w > 1 ? 's' : ''} = limit/loader per-sample work x worker busy: ${parts.join('; ')}`,
    );
  }
  return L;
}

export function toJson(
  cfg: Config,
  ds: ImageNetLike,
  files: Map<LoaderMode, LoaderDataset>,
  views: View[],
  rec: Records,
  breakdowns: Map<LoaderMode, BreakdownResult>,
  noise: ForeignLoad,
  totalS: number,
): Record<string, unknown> {
  const m = ds.manifest;
  const r1 = (v: number): number => round(v, 1);
  const r3 = (v: number | null): number | null => (v === null ? null : round(v, 3));
  const epoch = (e: EpochRecord): Record<string, unknown> => ({
    img_per_s: r1(e.imagesPerSec),
    otherLoad: e.otherCores === null ? null : round(e.otherCores, 2),
    busy: round(e.busy, 3),
    pairedLimit: e.pairedLimit === null ? null : r1(e.pairedLimit),
  });
  return {
    bench: 'loader',
    version: 1,
    date: new Date().toISOString(),
    env: {
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
      cores: availableParallelism(),
      cpu: cpus()[0]?.model ?? null,
      sharp: sharp.versions.sharp,
      vips: sharp.versions.vips,
      decodePath: decodePath(),
      decodePathDetail: describeDecodePath(),
      code: codeVersion(),
    },
    config: {
      count: m.count,
      seed: m.seed,
      maxResolution: MAX_RESOLUTION,
      outputSize: OUTPUT_SIZE,
      reps: cfg.reps,
      epochs: cfg.epochs,
      naiveEpochs: cfg.naiveEpochs,
      quick: cfg.quick,
      strictLimit: cfg.strict,
      quietThreshold: QUIET,
      files: [...files.values()].map((f) => ({ mode: f.mode, mix: f.mix, fileSize: f.fileSize })),
    },
    limit: Object.fromEntries(
      [...rec.limits].map(([mode, l]) => [
        mode,
        {
          runs: l.map((x) => ({
            img_per_s: r1(x.imagesPerSec),
            decodeOnly: r1(x.decodeOnlyPerSec),
            usPerImage: { params: r1(x.us.params), decode: r1(x.us.decode), copy: r1(x.us.copy) },
            otherLoad: x.other === null ? null : round(x.other, 2),
          })),
          probes: rec.probes.get(mode)!.map(r1),
          parallel: [...rec.parallel]
            .filter(([k]) => k.startsWith(`${mode}|`))
            .map(([, p]) => ({
              threads: p[0]!.threads,
              runs: p.map((x) => ({
                img_per_s: r1(x.imagesPerSec),
                efficiency: round(x.efficiency, 3),
                otherLoad: x.other === null ? null : round(x.other, 2),
              })),
            })),
        },
      ]),
    ),
    naive: [...rec.naive.values()].map((r) => ({ batchSize: r.batchSize, workers: r.workers, epochs: r.timed.map(epoch) })),
    runs: [...rec.runs.values()].map((r) => ({
      mode: r.mode,
      batchSize: r.batchSize,
      order: r.order,
      osCache: r.cache === 'on',
      workers: r.workers,
      epochs: r.timed.map(epoch),
      warmup: r.warmup.map(epoch),
      openSeconds: r.openSeconds.map((x) => round(x, 3)),
    })),
    summary: Object.fromEntries(
      views.map((v) => [
        v.name,
        {
          limit: Object.fromEntries([...v.limit].map(([k, x]) => [k, x === null ? null : r1(x)])),
          parallelLimit: Object.fromEntries([...v.parallel].map(([k, x]) => [k, x === null ? null : r1(x)])),
          naive: Object.fromEntries([...v.naive].map(([k, x]) => [k, x === null ? null : r1(x)])),
          results: v.cells.map((c) => ({
            mode: c.mode,
            batchSize: c.batchSize,
            order: c.order,
            osCache: c.cache === 'on',
            workers: c.workers,
            median_img_per_s: r1(c.imagesPerSec),
            epochsUsed: c.epochs,
            overLimit: r3(c.overLimit),
            overParallelLimit: r3(c.overParallel),
            overNaive: r3(c.overNaive),
            overW1: r3(c.overW1),
            workerBusy: round(c.busy, 3),
            coresBusy: round(c.cores, 2),
          })),
        },
      ]),
    ),
    breakdown: Object.fromEntries(
      [...breakdowns].map(([mode, b]) => [
        mode,
        {
          stage: b.stage,
          usPerImage: Object.fromEntries(Object.entries(b.us).map(([k, v]) => [k, r1(v)])),
          limitUsPerImage: Object.fromEntries(Object.entries(b.limit).map(([k, v]) => [k, r1(v)])),
        },
      ]),
    ),
    targets: { overLimit: TARGET_LIMIT, overNaive: TARGET_NAIVE },
    otherLoadCores: noise.summary(),
    totalSeconds: round(totalS, 1),
  };
}
