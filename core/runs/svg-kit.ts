/**
 * A small SVG chart kit: the page's geometry and colours, number formatting, tick values,
 * axes, legends and the document around the charts. Pure string building, no dependencies,
 * no I/O; what is drawn (the run charts) is plot.ts.
 */

const WIDTH = 960;
const FONT = `system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif`;
export const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];
export const INK = '#222222';
export const MUTED = '#666666';
const GRID = '#e6e6e6';

/** Plot area of a chart: margins inside a WIDTH × height box. */
export interface Frame {
  height: number;
  left: number;
  right: number;
  top: number;
  bottom: number;
}

export const frame = (height: number, legendWidth: number, bottomMargin = 58): Frame => ({
  height,
  left: 78,
  right: WIDTH - 24 - legendWidth,
  top: 48,
  bottom: height - bottomMargin,
});

export function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

export const r2 = (n: number): string => String(Math.round(n * 100) / 100);

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

export function text(x: number, y: number, s: string, attrs = ''): string {
  return `<text x="${r2(x)}" y="${r2(y)}"${attrs ? ' ' + attrs : ''}>${esc(s)}</text>`;
}

export function title(f: Frame, s: string): string {
  return text(f.left, 26, s, `font-size="16" font-weight="600" fill="${INK}"`);
}

export function emptyMessage(f: Frame, s: string): string {
  return (
    `<rect x="${f.left}" y="${f.top}" width="${f.right - f.left}" height="${f.bottom - f.top}" fill="#fafafa" stroke="${GRID}"/>` +
    text((f.left + f.right) / 2, (f.top + f.bottom) / 2, s, `text-anchor="middle" font-size="14" fill="${MUTED}"`)
  );
}

/** Left value axis with grid lines; returns the y of a value. */
export function yAxis(f: Frame, ticks: number[], label: string): { svg: string; y: (v: number) => number } {
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

export function xLabel(f: Frame, label: string): string {
  return text((f.left + f.right) / 2, f.height - 14, label, `text-anchor="middle" font-size="13" fill="${INK}"`);
}

export function axesBox(f: Frame): string {
  return `<line x1="${f.left}" x2="${f.right}" y1="${f.bottom}" y2="${f.bottom}" stroke="${INK}"/><line x1="${f.left}" x2="${f.left}" y1="${f.top}" y2="${f.bottom}" stroke="${INK}"/>`;
}

export function legend(f: Frame, items: Array<{ label: string; color: string; dashed?: boolean; bar?: boolean }>): string {
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

export const maxOf = (xs: Iterable<number>, floor: number): number => {
  let m = floor;
  for (const x of xs) if (x > m) m = x;
  return m;
};

export function svgDocument(heading: string, sub: string, charts: Array<{ svg: string; height: number }>): string {
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
