import { Bar, BarChart, CartesianGrid, Cell, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { LabelSummary } from '../../../core/api/contract.js';
import { formatNumber } from '../lib/format.js';
import { useChartColors } from './Charts.js';

/** A class's name for people: its manifest name, else its number. */
export const classLabel = (c: { label: number; name: string | null }): string => (c.name !== null ? c.name : `label ${c.label}`);

/** Samples per class; a bar click filters the samples to that class (again: all). */
export function ClassHistogram({
  labels,
  selected,
  onSelect,
}: {
  labels: LabelSummary;
  selected: number | null;
  onSelect(label: number | null): void;
}) {
  const c = useChartColors();
  const rows = labels.counts.map((x) => ({ label: x.label, name: classLabel(x), count: x.count }));
  const axis = { stroke: c.grid, tick: { fill: c.text, fontSize: 11 }, tickLine: false };
  return (
    <div
      className="chart-box"
      data-testid="class-histogram"
      data-count={rows.length}
      role="img"
      aria-label={`Samples per class: ${rows.map((r) => `${r.name} ${r.count}`).join(', ')}`}
    >
      <ResponsiveContainer width="100%" height={Math.min(320, 160 + rows.length * 2)}>
        <BarChart data={rows} margin={{ top: 8, right: 16, bottom: 20, left: 8 }}>
          <CartesianGrid stroke={c.grid} strokeDasharray="3 3" vertical={false} />
          <XAxis
            dataKey="name"
            {...axis}
            interval={rows.length > 40 ? 'preserveStartEnd' : 0}
            label={{ value: `class (${labels.field})`, position: 'insideBottom', offset: -12, fill: c.text, fontSize: 11 }}
          />
          <YAxis
            {...axis}
            allowDecimals={false}
            width={56}
            label={{ value: 'samples', angle: -90, position: 'insideLeft', fill: c.text, fontSize: 11 }}
          />
          <Tooltip
            contentStyle={{ background: c.surface, border: `1px solid ${c.grid}`, borderRadius: 6, fontSize: 12 }}
            formatter={(v) => [formatNumber(Number(v)), 'samples']}
          />
          <Bar
            dataKey="count"
            isAnimationActive={false}
            radius={[3, 3, 0, 0]}
            cursor="pointer"
            onClick={(d: { payload?: { label?: number } }) =>
              d.payload?.label !== undefined && onSelect(d.payload.label === selected ? null : d.payload.label)
            }
          >
            {rows.map((r) => (
              <Cell key={r.label} fill={selected === null || selected === r.label ? c.series[0] : c.grid} />
            ))}
          </Bar>
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
