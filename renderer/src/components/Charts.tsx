import { useEffect, useMemo, useState, type ReactNode } from 'react';
import {
  Bar,
  BarChart,
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ReferenceArea,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import { formatCompact } from '../lib/format.js';
import { evenTicks } from '../lib/ticks.js';
import { useUiStore } from '../stores/ui.js';

export interface ChartColors {
  text: string;
  grid: string;
  surface: string;
  series: string[];
}

const FALLBACK: ChartColors = {
  text: '#667',
  grid: '#ddd',
  surface: '#fff',
  series: ['#3b5bdb', '#e8590c', '#2b8a3e', '#ae3ec9', '#1098ad', '#c92a2a'],
};

function readColors(): ChartColors {
  if (typeof document === 'undefined' || typeof getComputedStyle !== 'function') return FALLBACK;
  const cs = getComputedStyle(document.documentElement);
  const v = (n: string, d: string): string => cs.getPropertyValue(n).trim() || d;
  return {
    text: v('--text-muted', FALLBACK.text),
    grid: v('--chart-grid', FALLBACK.grid),
    surface: v('--surface', FALLBACK.surface),
    series: FALLBACK.series.map((d, i) => v(`--series-${i + 1}`, d)),
  };
}

/** Chart colours from the theme's CSS variables, refreshed when the theme or the OS scheme changes. */
export function useChartColors(): ChartColors {
  const theme = useUiStore((s) => s.theme);
  const [osDark, setOsDark] = useState(() => typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches);
  useEffect(() => {
    if (typeof matchMedia !== 'function') return;
    const mq = matchMedia('(prefers-color-scheme: dark)');
    const on = (e: MediaQueryListEvent): void => setOsDark(e.matches);
    mq.addEventListener?.('change', on);
    return () => mq.removeEventListener?.('change', on);
  }, []);
  return useMemo(readColors, [theme, osDark]);
}

export function ChartCard({
  title,
  subtitle,
  testId,
  count,
  children,
  empty,
}: {
  title: string;
  subtitle?: ReactNode;
  testId: string;
  count: number;
  children: ReactNode;
  empty: ReactNode;
}) {
  return (
    <section className="card chart-card" data-testid={testId} data-count={count} aria-label={title}>
      <header className="card-head">
        <h3>{title}</h3>
        {subtitle ? <span className="card-sub">{subtitle}</span> : null}
      </header>
      {count > 0 ? <div className="chart-box">{children}</div> : <div className="chart-empty">{empty}</div>}
    </section>
  );
}

// Keys are checked against Row by the props' types; recharts' own generic key type cannot see that.
const key = (k: string): never => k as never;

const axis = (c: ChartColors) => ({ stroke: c.grid, tick: { fill: c.text, fontSize: 11 }, tickLine: false });
const tooltipStyle = (c: ChartColors) => ({
  contentStyle: { background: c.surface, border: `1px solid ${c.grid}`, borderRadius: 6, fontSize: 12 },
  labelStyle: { color: c.text },
});

/**
 * Room for the axis titles: the x title sits under the ticks inside the bottom margin, the
 * y title is turned along the axis left of the ticks. The legend goes above the plot, so it
 * never lands on the x title (recharts puts it at the bottom by default, over the title).
 */
const margin = (xLabel?: string, yLabel?: string) => ({ top: 8, right: 16, bottom: xLabel ? 18 : 4, left: yLabel ? 12 : 0 });
const xTitle = (c: ChartColors, value?: string) =>
  value ? { value, position: 'insideBottom' as const, offset: -12, fill: c.text, fontSize: 11 } : undefined;
const yTitle = (c: ChartColors, value?: string) =>
  value
    ? {
        value,
        angle: -90,
        position: 'insideLeft' as const,
        offset: -4,
        style: { textAnchor: 'middle' as const },
        fill: c.text,
        fontSize: 11,
      }
    : undefined;
const legend = (c: ChartColors) => (
  <Legend verticalAlign="top" align="right" height={24} iconSize={10} wrapperStyle={{ fontSize: 12, color: c.text, lineHeight: '16px' }} />
);

/** A stretch of the x axis to shade and name (a grid point on a timeline). */
export interface XSpan {
  x1: number;
  x2: number;
  label: string;
  /** What the span is called when there are too many to name in full ("#3"). */
  short?: string;
}

/** Beyond this many spans their full names would overlap on a chart of card width: the short ones are used. */
export const FULL_SPAN_LABELS = 4;

/** A value with its unit ("12.5 ms"); a formatter that writes its own unit ("45%") is left alone. */
const withUnit = (text: string, unit?: string): string => (unit && !text.endsWith('%') ? `${text} ${unit}` : text);

/** Tooltip value and label formatters that say the units. */
const tooltipFormat = (yFormat: (v: number) => string, unit?: string, xFormat?: (v: number) => string, xUnit?: string) => ({
  formatter: (v: unknown) => (typeof v === 'number' ? withUnit(yFormat(v), unit) : String(v)),
  labelFormatter: (v: unknown) =>
    typeof v === 'number' ? withUnit(xFormat ? xFormat(v) : String(Math.round(v * 100) / 100), xUnit) : String(v ?? ''),
});

/** A line chart over rows; `lines` name the numeric keys to draw; `spans` shade and label stretches of x. */
export function Lines<Row extends object>({
  rows,
  x,
  lines,
  xLabel,
  yLabel,
  yFormat = formatCompact,
  xFormat,
  height = 220,
  dots = false,
  yDomain,
  spans = [],
  unit,
  xUnit,
  connectNulls = false,
  xTicks,
}: {
  rows: Row[];
  /** The x ticks to draw (the worker counts measured); absent: evenly spaced. */
  xTicks?: number[];
  /**
   * Draw a line across a missing value: only for charts of discrete measurements whose dots
   * mark what was measured (images/s vs workers). A timeline's missing reading is a gap.
   */
  connectNulls?: boolean;
  x: keyof Row & string;
  lines: Array<{ key: string; name?: string; dashed?: boolean }>;
  /** The values' unit, said in the tooltip ("ms", "images/s"). */
  unit?: string;
  /** The x values' unit, said in the tooltip ("s"). */
  xUnit?: string;
  xLabel?: string;
  /** The y axis's title, with its unit ("images/s", "wait per step (ms)"). */
  yLabel?: string;
  yFormat?: (v: number) => string;
  xFormat?: (v: number) => string;
  height?: number;
  dots?: boolean;
  yDomain?: [number, number];
  spans?: XSpan[];
}) {
  const c = useChartColors();
  const xs = rows.map((r) => (r as Record<string, unknown>)[x]).filter((v): v is number => typeof v === 'number');
  const ticks = xTicks ?? (xs.length ? evenTicks(Math.min(...xs), Math.max(...xs)) : undefined);
  // Full names only when they fit: few spans, none much narrower than the chart (a 2 s point in a 40 s run is not).
  const range = xs.length ? Math.max(...xs) - Math.min(...xs) : 0;
  const short = spans.length > FULL_SPAN_LABELS || (range > 0 && spans.some((s) => s.x2 - s.x1 < range * 0.15));
  return (
    <ResponsiveContainer width="100%" height={height}>
      <LineChart data={rows} margin={margin(xLabel, yLabel)}>
        <CartesianGrid stroke={c.grid} strokeDasharray="3 3" vertical={false} />
        {spans.map((s, i) => (
          <ReferenceArea
            key={`a${i}`}
            x1={s.x1}
            x2={s.x2}
            fill={c.series[i % 2 ? 1 : 0]}
            fillOpacity={0.06}
            ifOverflow="hidden"
            label={{ value: short ? (s.short ?? `${i + 1}`) : s.label, position: 'insideTopLeft', fill: c.text, fontSize: 10 }}
          />
        ))}
        {spans.map((s, i) => (
          <ReferenceLine key={`l${i}`} x={s.x1} stroke={c.text} strokeOpacity={0.45} strokeDasharray="2 3" ifOverflow="hidden" />
        ))}
        <XAxis
          dataKey={key(x)}
          type="number"
          domain={['dataMin', 'dataMax']}
          {...axis(c)}
          tickFormatter={xFormat}
          label={xTitle(c, xLabel)}
          allowDecimals={false}
          ticks={ticks}
          interval={0}
        />
        <YAxis
          {...axis(c)}
          tickFormatter={(v: number) => yFormat(v)}
          width={48}
          domain={yDomain ?? [0, 'auto']}
          label={yTitle(c, yLabel)}
        />
        <Tooltip {...tooltipStyle(c)} {...tooltipFormat(yFormat, unit, xFormat, xUnit)} />
        {lines.length > 1 ? legend(c) : null}
        {lines.map((l, i) => (
          <Line
            key={l.key}
            type="linear"
            dataKey={l.key}
            name={l.name ?? l.key}
            stroke={c.series[i % c.series.length]}
            strokeWidth={2}
            strokeDasharray={l.dashed ? '5 3' : undefined}
            dot={dots ? { r: 3 } : false}
            isAnimationActive={false}
            // A missing reading is a gap, drawn as one: no line across where nothing was measured.
            connectNulls={connectNulls}
          />
        ))}
      </LineChart>
    </ResponsiveContainer>
  );
}

export function Bars<Row extends object>({
  rows,
  x,
  y,
  height = 200,
  yFormat = formatCompact,
  yDomain,
  xLabel,
  yLabel,
  unit,
}: {
  rows: Row[];
  x: keyof Row & string;
  y: keyof Row & string;
  /** The values' unit, said in the tooltip. */
  unit?: string;
  height?: number;
  yFormat?: (v: number) => string;
  yDomain?: [number, number];
  xLabel?: string;
  yLabel?: string;
}) {
  const c = useChartColors();
  return (
    <ResponsiveContainer width="100%" height={height}>
      <BarChart data={rows} margin={margin(xLabel, yLabel)}>
        <CartesianGrid stroke={c.grid} strokeDasharray="3 3" vertical={false} />
        <XAxis dataKey={key(x)} {...axis(c)} label={xTitle(c, xLabel)} />
        <YAxis
          {...axis(c)}
          tickFormatter={(v: number) => yFormat(v)}
          width={48}
          domain={yDomain ?? [0, 'auto']}
          label={yTitle(c, yLabel)}
        />
        <Tooltip {...tooltipStyle(c)} {...tooltipFormat(yFormat, unit)} />
        <Bar dataKey={key(y)} fill={c.series[0]} isAnimationActive={false} radius={[3, 3, 0, 0]} />
      </BarChart>
    </ResponsiveContainer>
  );
}
