/**
 * Charts of profile runs as standalone SVG text: pure functions, no dependencies, no I/O.
 * `plotRun` draws throughput against workers (one line per batch size / order / cache
 * combination) and a timeline of the telemetry; `plotCompare` puts two runs side by side.
 * Light background, labelled axes, <title> tooltips on the data marks; the drawing kit
 * (axes, legends, ticks, the document) is svg-kit.ts.
 */
import {
  axesBox,
  emptyMessage,
  esc,
  fmtNum,
  frame,
  INK,
  legend,
  maxOf,
  MUTED,
  niceTicks,
  PALETTE,
  r2,
  svgDocument,
  text,
  title,
  xLabel,
  yAxis,
} from './svg-kit.js';
import type { PointConfig, PointResult, ProfileRun, TelemetrySample } from '../api/profile-model.js';

/** What the charts need of a run: a ProfileRun or a stored run (whose status may be 'running'). */
export type PlottableRun = Pick<ProfileRun, 'kind' | 'startedAt' | 'points' | 'samples' | 'dataset' | 'plan' | 'verdict'> & {
  id?: number;
  status: string;
};

const GPU_COLOR = '#2ca02c';

const seriesKey = (c: PointConfig): string => `${c.batchSize}|${c.order}|${c.osCache ? 1 : 0}`;
const seriesLabel = (c: PointConfig): string => `batch ${c.batchSize} · ${c.order} · ${c.osCache ? 'os cache' : 'process cache'}`;
const configLabel = (c: PointConfig): string => `${c.workers}w · b${c.batchSize} · ${c.order} · ${c.osCache ? 'os' : 'proc'}`;

/** Throughput (images/s) against workers, one line per batch size / order / cache combination. */
function throughputChart(points: readonly PointResult[], height: number): string {
  const series = new Map<string, PointResult[]>();
  for (const p of points) {
    const k = seriesKey(p.config);
    const list = series.get(k) ?? [];
    list.push(p);
    series.set(k, list);
  }
  const f = frame(height, 230);
  const out = [title(f, 'Throughput vs workers')];
  if (points.length === 0) return out.concat(emptyMessage(f, 'No sweep points in this run'), xLabel(f, 'Workers')).join('');
  const workers = [...new Set(points.map((p) => p.config.workers))].sort((a, b) => a - b);
  const slot = (f.right - f.left) / workers.length;
  const x = (w: number): number => f.left + slot * (workers.indexOf(w) + 0.5);
  const ticks = niceTicks(
    0,
    maxOf(
      points.map((p) => p.imagesPerSec),
      0,
    ) * 1.08,
  );
  const ax = yAxis(f, ticks, 'Images/s');
  out.push(ax.svg);
  for (const w of workers) out.push(text(x(w), f.bottom + 18, String(w), `text-anchor="middle" font-size="12" fill="${MUTED}"`));
  out.push(axesBox(f), xLabel(f, 'Workers'));
  const best = points.reduce((b, p) => (p.imagesPerSec > b.imagesPerSec ? p : b));
  const items: Array<{ label: string; color: string }> = [];
  [...series.values()].forEach((list, i) => {
    const color = PALETTE[i % PALETTE.length]!;
    const sorted = [...list].sort((a, b) => a.config.workers - b.config.workers);
    items.push({ label: seriesLabel(sorted[0]!.config), color });
    const d = sorted.map((p, j) => `${j ? 'L' : 'M'}${r2(x(p.config.workers))} ${r2(ax.y(p.imagesPerSec))}`).join(' ');
    out.push(`<path d="${d}" fill="none" stroke="${color}" stroke-width="2.5" stroke-linejoin="round"/>`);
    for (const p of sorted) {
      // Points counted from 1 as everywhere else people read them; "1 worker", not "1 workers".
      const tip = `#${p.index + 1}: ${p.config.workers} worker${p.config.workers === 1 ? '' : 's'}, ${seriesLabel(p.config)}: ${Math.round(p.imagesPerSec)} images/s, wait p50 ${p.waitP50Ms.toFixed(1)} ms`;
      out.push(
        `<circle cx="${r2(x(p.config.workers))}" cy="${r2(ax.y(p.imagesPerSec))}" r="4" fill="${color}"><title>${esc(tip)}</title></circle>`,
      );
    }
  });
  const bx = x(best.config.workers);
  const by = ax.y(best.imagesPerSec);
  out.push(`<circle cx="${r2(bx)}" cy="${r2(by)}" r="8" fill="none" stroke="${INK}" stroke-width="1.5"/>`);
  out.push(
    text(bx, by - 13, `best ${fmtNum(best.imagesPerSec)} img/s`, `text-anchor="middle" font-size="12" font-weight="600" fill="${INK}"`),
  );
  out.push(legend(f, items.slice(0, 14)));
  if (items.length > 14)
    out.push(text(f.right + 24, f.top + 8 + 14 * 20 + 4, `… and ${items.length - 14} more`, `font-size="12" fill="${MUTED}"`));
  return out.join('');
}

/** Path of a series over time, broken where the value is null. */
function brokenPath(
  samples: readonly TelemetrySample[],
  x: (t: number) => number,
  y: (v: number) => number,
  value: (s: TelemetrySample) => number | null,
): string {
  let d = '';
  let pen = false;
  for (const s of samples) {
    const v = value(s);
    if (v === null) {
      pen = false;
      continue;
    }
    d += `${pen ? 'L' : 'M'}${r2(x(s.t))} ${r2(y(v))} `;
    pen = true;
  }
  return d.trim();
}

const gpuMean = (s: TelemetrySample): number | null =>
  s.gpus.length ? s.gpus.reduce((a, g) => a + g.utilPercent, 0) / s.gpus.length : null;

/**
 * At most `max` samples: long runs (hours at 4 Hz) are averaged in consecutive buckets, so
 * the SVG stays small. Bucket values are means of the non-null readings (null if none);
 * GPU utilisation becomes one reading with the mean over GPUs.
 */
export function thinSamples(samples: readonly TelemetrySample[], max: number): readonly TelemetrySample[] {
  if (samples.length <= max) return samples;
  const per = Math.ceil(samples.length / max);
  const out: TelemetrySample[] = [];
  for (let i = 0; i < samples.length; i += per) {
    const bucket = samples.slice(i, i + per);
    const mean = (vals: Array<number | null>): number | null => {
      const v = vals.filter((x): x is number => x !== null);
      return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null;
    };
    const ips = mean(bucket.map((s) => s.imagesPerSec));
    const gpu = mean(bucket.map(gpuMean));
    const first = bucket[0]!;
    out.push({
      t: mean(bucket.map((s) => s.t))!,
      point: first.point,
      imagesPerSec: ips,
      cpuPerCore: [],
      rssBytes: first.rssBytes,
      diskReadBytes: 0,
      gpus: gpu === null ? [] : [{ index: 0, utilPercent: gpu, memoryUsedMiB: 0, powerW: null }],
    });
  }
  return out;
}

/** Images/s over time (and mean GPU utilisation, right axis), for one or more runs. */
function timelineChart(
  input: ReadonlyArray<{ samples: readonly TelemetrySample[]; label: string; color: string }>,
  height: number,
  heading: string,
): string {
  const f = frame(height, 230);
  const out = [title(f, heading)];
  const runs = input.map((r) => ({ ...r, samples: thinSamples(r.samples, Math.round((f.right - f.left) * 2)) }));
  const all = runs.flatMap((r) => r.samples);
  if (all.length === 0) return out.concat(emptyMessage(f, 'No telemetry samples in this run'), xLabel(f, 'Time (s)')).join('');
  const tMax = maxOf(
    all.map((s) => s.t / 1000),
    0.001,
  );
  const xt = niceTicks(0, tMax, 8);
  const xHi = xt[xt.length - 1]!;
  const x = (tMs: number): number => f.left + (tMs / 1000 / xHi) * (f.right - f.left);
  const ipsMax = maxOf(
    all.map((s) => s.imagesPerSec ?? 0),
    0,
  );
  const ax = yAxis(f, niceTicks(0, ipsMax > 0 ? ipsMax * 1.08 : 1), 'Images/s');
  const single = runs.length === 1 ? runs[0]! : null;
  // Shade the span of each grid point (one run only: with two runs the bands would clash).
  if (single) {
    let start = 0;
    let band = 0;
    for (let i = 1; i <= single.samples.length; i++) {
      const cur = single.samples[i];
      const prev = single.samples[i - 1]!;
      if (cur && cur.point === prev.point) continue;
      const first = single.samples[start]!;
      if (first.point !== null) {
        const x0 = x(first.t);
        const x1 = cur ? x(cur.t) : x(prev.t);
        out.push(
          `<rect x="${r2(x0)}" y="${f.top}" width="${r2(Math.max(0, x1 - x0))}" height="${f.bottom - f.top}" fill="${band++ % 2 ? '#f2f5fa' : '#f8f9fb'}"><title>point #${first.point}</title></rect>`,
        );
        if (x1 - x0 > 26)
          out.push(text((x0 + x1) / 2, f.top + 14, `#${first.point}`, `text-anchor="middle" font-size="11" fill="${MUTED}"`));
      }
      start = i;
    }
  }
  out.push(ax.svg);
  for (const t of xt)
    out.push(
      text(f.left + (t / xHi) * (f.right - f.left), f.bottom + 18, fmtNum(t), `text-anchor="middle" font-size="12" fill="${MUTED}"`),
    );
  out.push(axesBox(f), xLabel(f, 'Time (s)'));
  const items: Array<{ label: string; color: string; dashed?: boolean }> = [];
  for (const r of runs) {
    const d = brokenPath(r.samples, x, ax.y, (s) => s.imagesPerSec);
    if (d) out.push(`<path d="${d}" fill="none" stroke="${r.color}" stroke-width="2" stroke-linejoin="round"/>`);
    items.push({ label: r.label, color: r.color });
  }
  const withGpu = runs.filter((r) => r.samples.some((s) => s.gpus.length > 0));
  if (withGpu.length) {
    const yg = (v: number): number => f.bottom - (Math.min(v, 100) / 100) * (f.bottom - f.top);
    for (const t of [0, 25, 50, 75, 100]) out.push(text(f.right + 8, yg(t) + 4, String(t), `font-size="12" fill="${GPU_COLOR}"`));
    out.push(`<line x1="${f.right}" x2="${f.right}" y1="${f.top}" y2="${f.bottom}" stroke="${GPU_COLOR}"/>`);
    const mid = (f.top + f.bottom) / 2;
    out.push(
      text(
        f.right + 44,
        mid,
        'GPU util (%)',
        `transform="rotate(90 ${r2(f.right + 44)} ${r2(mid)})" text-anchor="middle" font-size="13" fill="${GPU_COLOR}"`,
      ),
    );
    for (const r of withGpu) {
      const color = runs.length === 1 ? GPU_COLOR : r.color;
      out.push(
        `<path d="${brokenPath(r.samples, x, yg, gpuMean)}" fill="none" stroke="${color}" stroke-width="1.2" stroke-opacity="0.55" stroke-dasharray="4 3"/>`,
      );
      items.push({ label: runs.length === 1 ? 'GPU util (mean, %)' : `${r.label}: GPU util (%)`, color, dashed: true });
    }
  }
  out.push(legend({ ...f, right: f.right + (withGpu.length ? 40 : 0) }, items));
  return out.join('');
}

function runTitle(run: PlottableRun): string {
  const file = run.dataset?.path ?? ('file' in run.plan ? run.plan.file : null);
  return `${run.id !== undefined ? `Run #${run.id}` : 'Run'} · ${run.kind} · ${run.status}${file ? ` · ${file}` : ''} · ${run.startedAt}`;
}

function verdictLine(run: PlottableRun): string {
  return run.verdict ? `Verdict: ${run.verdict.kind} — ${run.verdict.summary}` : 'No verdict';
}

/** One run: throughput vs workers, then the telemetry timeline. */
export function plotRun(run: PlottableRun): string {
  const charts = [
    { svg: throughputChart(run.points, 400), height: 400 },
    { svg: timelineChart([{ samples: run.samples, label: 'Images/s', color: PALETTE[0]! }], 320, 'Throughput over time'), height: 320 },
  ];
  return svgDocument(runTitle(run), verdictLine(run), charts);
}

/** Grouped bars: images/s of A and B for every grid point both runs measured, with B÷A above. */
function compareBars(a: PlottableRun, b: PlottableRun, la: string, lb: string, height: number): string {
  let f = frame(height, 230);
  const out = [title(f, 'Images/s per grid point (B ÷ A above)')];
  const key = (c: PointConfig): string => `${c.workers}|${seriesKey(c)}`;
  const inB = new Map<string, PointResult>();
  for (const p of b.points) if (!inB.has(key(p.config))) inB.set(key(p.config), p);
  const seen = new Set<string>();
  const pairs: Array<[PointResult, PointResult]> = [];
  for (const p of a.points) {
    const k = key(p.config);
    const q = inB.get(k);
    if (q && !seen.has(k)) pairs.push([p, q]);
    seen.add(k);
  }
  if (pairs.length === 0)
    return out
      .concat(emptyMessage(f, 'The runs have no grid point in common'), xLabel(f, 'Grid point (workers · batch · order · cache)'))
      .join('');
  // Many points: slanted labels, which need a deeper bottom margin.
  const rotate = pairs.length > 6;
  if (rotate) f = frame(height, 230, 112);
  const ax = yAxis(
    f,
    niceTicks(
      0,
      maxOf(
        pairs.flatMap(([p, q]) => [p.imagesPerSec, q.imagesPerSec]),
        0,
      ) * 1.12,
    ),
    'Images/s',
  );
  out.push(ax.svg);
  const slot = (f.right - f.left) / pairs.length;
  const bw = Math.min(28, slot * 0.36);
  pairs.forEach(([p, q], i) => {
    const cx = f.left + slot * (i + 0.5);
    for (const [v, dx, color, who] of [
      [p.imagesPerSec, -bw, PALETTE[0]!, 'A'],
      [q.imagesPerSec, 0, PALETTE[1]!, 'B'],
    ] as const) {
      out.push(
        `<rect x="${r2(cx + dx)}" y="${r2(ax.y(v))}" width="${r2(bw)}" height="${r2(f.bottom - ax.y(v))}" fill="${color}"><title>${esc(`${who}: ${configLabel(p.config)}: ${Math.round(v)} images/s`)}</title></rect>`,
      );
    }
    const ratio = p.imagesPerSec > 0 ? `×${(q.imagesPerSec / p.imagesPerSec).toFixed(2)}` : '—';
    out.push(text(cx, ax.y(Math.max(p.imagesPerSec, q.imagesPerSec)) - 6, ratio, `text-anchor="middle" font-size="11" fill="${INK}"`));
    const lx = r2(cx);
    const ly = r2(f.bottom + 16);
    out.push(
      rotate
        ? text(
            cx,
            f.bottom + 16,
            configLabel(p.config),
            `transform="rotate(-30 ${lx} ${ly})" text-anchor="end" font-size="10" fill="${MUTED}"`,
          )
        : text(cx, f.bottom + 16, configLabel(p.config), `text-anchor="middle" font-size="10" fill="${MUTED}"`),
    );
  });
  out.push(axesBox(f));
  if (!rotate) out.push(xLabel(f, 'Grid point (workers · batch · order · cache)'));
  out.push(
    legend(f, [
      { label: la, color: PALETTE[0]!, bar: true },
      { label: lb, color: PALETTE[1]!, bar: true },
    ]),
  );
  return out.join('');
}

/** Two runs: per-point bars with the B÷A ratio, then both timelines on one time axis. */
export function plotCompare(a: PlottableRun, b: PlottableRun): string {
  const name = (r: PlottableRun, fallback: string): string => (r.id !== undefined ? `run #${r.id}` : fallback);
  const la = `A: ${name(a, 'first run')}`;
  const lb = `B: ${name(b, 'second run')}`;
  const charts = [
    { svg: compareBars(a, b, la, lb, 440), height: 440 },
    {
      svg: timelineChart(
        [
          { samples: a.samples, label: la, color: PALETTE[0]! },
          { samples: b.samples, label: lb, color: PALETTE[1]! },
        ],
        320,
        'Throughput over time',
      ),
      height: 320,
    },
  ];
  const sub = `A: ${a.verdict?.kind ?? 'no verdict'} (${a.startedAt}) · B: ${b.verdict?.kind ?? 'no verdict'} (${b.startedAt})`;
  return svgDocument(`Compare ${name(a, 'A')} and ${name(b, 'B')}`, sub, charts);
}
