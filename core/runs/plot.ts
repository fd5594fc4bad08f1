/**
 * Charts of profile runs as standalone SVG text: pure functions, no dependencies, no I/O.
 * `plotRun` draws throughput against workers (one line per batch size / order / cache
 * combination) and a timeline of the telemetry; `plotCompare` puts two runs side by side.
 * Light background, labelled axes, <title> tooltips on the data marks.
 */
import type { PointConfig, PointResult, ProfileRun, TelemetrySample } from '../api/profile-model.js';

/** What the charts need of a run: a ProfileRun or a stored run (whose status may be 'running'). */
export type PlottableRun = Pick<ProfileRun, 'kind' | 'startedAt' | 'points' | 'samples' | 'dataset' | 'plan' | 'verdict'> & {
  id?: number;
  status: string;
};

const WIDTH = 960;
const FONT = `system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif`;
const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];
const INK = '#222222';
const MUTED = '#666666';
const GRID = '#e6e6e6';
const GPU_COLOR = '#2ca02c';

/** Plot area of a chart: margins inside a WIDTH × height box. */
interface Frame {
  height: number;
  left: number;
  right: number;
  top: number;
  bottom: number;
}

const frame = (height: number, legendWidth: number, bottomMargin = 58): Frame => ({
  height,
  left: 78,
  right: WIDTH - 24 - legendWidth,
  top: 48,
  bottom: height - bottomMargin,
});

export function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

const r2 = (n: number): string => String(Math.round(n * 100) / 100);

/** Compact numbers for ticks and labels: 950, 1.2k, 12k, 3.4M. */
export function fmtNum(n: number): string {
  const a = Math.abs(n);
  if (a >= 1e9) return `${trim(n / 1e9)}G`;
  if (a >= 1e6) return `${trim(n / 1e6)}M`;
  if (a >= 1e4) return `${Math.round(n / 1e3)}k`;
  if (a >= 1e3) return `${trim(n / 1e3)}k`;
  if (a >= 100 || Number.isInteger(n)) return String(Math.round(n));
  return trim(n);
}
const trim = (n: number): string => String(Number(n.toFixed(Math.abs(n) >= 10 ? 1 : 2)));

/** About `count` round tick values covering [0, max] (or [min, max]). */
export function niceTicks(min: number, max: number, count = 5): number[] {
  if (!(max > min)) max = min + 1;
  const raw = (max - min) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const lo = Math.floor(min / step) * step;
  const ticks: number[] = [];
  for (let v = lo; v < max + step * 0.999; v += step) ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

function text(x: number, y: number, s: string, attrs = ''): string {
  return `<text x="${r2(x)}" y="${r2(y)}"${attrs ? ' ' + attrs : ''}>${esc(s)}</text>`;
}

function title(f: Frame, s: string): string {
  return text(f.left, 26, s, `font-size="16" font-weight="600" fill="${INK}"`);
}

function emptyMessage(f: Frame, s: string): string {
  return (
    `<rect x="${f.left}" y="${f.top}" width="${f.right - f.left}" height="${f.bottom - f.top}" fill="#fafafa" stroke="${GRID}"/>` +
    text((f.left + f.right) / 2, (f.top + f.bottom) / 2, s, `text-anchor="middle" font-size="14" fill="${MUTED}"`)
  );
}

/** Left value axis with grid lines; returns the y of a value. */
function yAxis(f: Frame, ticks: number[], label: string): { svg: string; y: (v: number) => number } {
  const lo = ticks[0]!;
  const hi = ticks[ticks.length - 1]!;
  const y = (v: number): number => f.bottom - ((v - lo) / (hi - lo)) * (f.bottom - f.top);
  const parts = ticks.map(
    (t) =>
      `<line x1="${f.left}" x2="${f.right}" y1="${r2(y(t))}" y2="${r2(y(t))}" stroke="${GRID}"/>` +
      text(f.left - 8, y(t) + 4, fmtNum(t), `text-anchor="end" font-size="12" fill="${MUTED}"`),
  );
  const mid = (f.top + f.bottom) / 2;
  parts.push(text(20, mid, label, `transform="rotate(-90 20 ${r2(mid)})" text-anchor="middle" font-size="13" fill="${INK}"`));
  return { svg: parts.join(''), y };
}

function xLabel(f: Frame, label: string): string {
  return text((f.left + f.right) / 2, f.height - 14, label, `text-anchor="middle" font-size="13" fill="${INK}"`);
}

function axesBox(f: Frame): string {
  return `<line x1="${f.left}" x2="${f.right}" y1="${f.bottom}" y2="${f.bottom}" stroke="${INK}"/><line x1="${f.left}" x2="${f.left}" y1="${f.top}" y2="${f.bottom}" stroke="${INK}"/>`;
}

function legend(f: Frame, items: Array<{ label: string; color: string; dashed?: boolean; bar?: boolean }>): string {
  const x = f.right + 24;
  return items
    .map((it, i) => {
      const y = f.top + 8 + i * 20;
      const mark = it.bar
        ? `<rect x="${x}" y="${y - 6}" width="18" height="12" fill="${it.color}"/>`
        : `<line x1="${x}" x2="${x + 18}" y1="${y}" y2="${y}" stroke="${it.color}" stroke-width="2.5"${it.dashed ? ' stroke-dasharray="5 3"' : ''}/>`;
      return mark + text(x + 26, y + 4, it.label, `font-size="12" fill="${INK}"`);
    })
    .join('');
}

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

const maxOf = (xs: Iterable<number>, floor: number): number => {
  let m = floor;
  for (const x of xs) if (x > m) m = x;
  return m;
};

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

function svgDocument(heading: string, sub: string, charts: Array<{ svg: string; height: number }>): string {
  const head = 64;
  const height = head + charts.reduce((s, c) => s + c.height, 0);
  let y = head;
  const body = charts.map((c) => {
    const g = `<g transform="translate(0 ${y})">${c.svg}</g>`;
    y += c.height;
    return g;
  });
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" role="img" font-family="${esc(FONT)}">` +
    `<title>${esc(heading)}</title>` +
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>` +
    text(24, 30, heading, `font-size="19" font-weight="700" fill="${INK}"`) +
    text(24, 50, sub, `font-size="12" fill="${MUTED}"`) +
    body.join('') +
    `</svg>\n`
  );
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
