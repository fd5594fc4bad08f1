/** Pure formatting helpers for the UI (no DOM, no I/O; locale-independent so tests are stable). */
import { FIELD_TYPE } from '../../../core/api/constants.js';

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

/** 0 B, 512 B, 1.5 KiB, 12.3 MiB, 120 GiB (three significant digits). */
export function formatBytes(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  const neg = n < 0;
  let v = Math.abs(n);
  let u = 0;
  while (v >= 1024 && u < UNITS.length - 1) {
    v /= 1024;
    u++;
  }
  const text = u === 0 ? String(Math.round(v)) : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2);
  return `${neg ? '-' : ''}${text} ${UNITS[u]}`;
}

/** 1234567 → "1,234,567"; fractions kept to `digits`. */
export function formatNumber(n: number | null | undefined, digits = 0): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  const fixed = Math.abs(n).toFixed(digits);
  const [int, frac] = fixed.split('.') as [string, string | undefined];
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${n < 0 && Number(fixed) !== 0 ? '-' : ''}${grouped}${frac ? `.${frac}` : ''}`;
}

/** Short counts for axes and badges: 950, 9.5k, 12k, 1.2M. */
export function formatCompact(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  const a = Math.abs(n);
  if (a < 1000) return a < 10 && !Number.isInteger(n) ? n.toFixed(1) : String(Math.round(n));
  if (a < 1e6) return `${(n / 1e3).toFixed(a < 1e4 ? 1 : 0)}k`;
  if (a < 1e9) return `${(n / 1e6).toFixed(a < 1e7 ? 1 : 0)}M`;
  return `${(n / 1e9).toFixed(1)}G`;
}

/** A rate per second: "1,234 samples/s", "0.5 img/s". */
export function formatRate(perSec: number | null | undefined, unit = 'samples'): string {
  if (perSec === null || perSec === undefined || !Number.isFinite(perSec)) return '—';
  const digits = perSec < 10 ? 1 : 0;
  return `${formatNumber(perSec, digits)} ${unit}/s`;
}

/** A ratio with two significant digits below 1 ("0.051×", never a misleading "0.00×"), two decimals above. */
export function formatRatio(r: number | null | undefined): string {
  if (r === null || r === undefined || !Number.isFinite(r)) return '—';
  return `${r >= 100 ? r.toFixed(0) : r >= 1 ? r.toFixed(2) : r > 0 ? r.toPrecision(2) : '0'}×`;
}

/** A duration in ms for people: "0.4 s", "12 s", "3 min 05 s", "1 h 02 min". */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, '0')} s`;
  const h = Math.floor(m / 60);
  return `${h} h ${String(m % 60).padStart(2, '0')} min`;
}

/** Time left: "—" when unknown, "done" at 0, else a duration ("~" for long ones is implied by the label). */
export function formatEta(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return '—';
  if (ms === 0) return 'done';
  if (ms < 1000) return '< 1 s';
  return formatDuration(ms);
}

/** Percent done, 0..100 (null when the total is unknown); clamps. */
export function percent(done: number, total: number | null | undefined): number | null {
  if (total === null || total === undefined || !Number.isFinite(total)) return null;
  if (total <= 0) return 100;
  return Math.max(0, Math.min(100, (done / total) * 100));
}

export function formatPercent(p: number | null | undefined, digits = 0): string {
  if (p === null || p === undefined || !Number.isFinite(p)) return '—';
  return `${p.toFixed(digits)}%`;
}

/** "2026-01-02T03:04:05Z" → "2026-01-02 03:04" in local time. */
export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** The last part of a path, whatever the separator. */
export function basename(path: string): string {
  const parts = path.split(/[\\/]+/).filter(Boolean);
  return parts[parts.length - 1] ?? path;
}

/** The folder of a path ("" for a bare name). */
export function dirname(path: string): string {
  const i = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  if (i < 0) return '';
  if (i === 0) return path[0]!;
  return path.slice(0, i);
}

export function joinPath(dir: string, name: string): string {
  if (!dir) return name;
  const sep = dir.includes('\\') && !dir.includes('/') ? '\\' : '/';
  return dir.endsWith(sep) ? dir + name : dir + sep + name;
}

/** The output a build of `source` suggests: beside the source, named after it, `.beton`. */
export function suggestOutput(source: string): string {
  const trimmed = source.replace(/[\\/]+$/, '');
  const base = basename(trimmed).replace(/\.(csv|tsv|parquet|jsonl|npy|npz|json)$/i, '') || 'dataset';
  return joinPath(dirname(trimmed), `${base}.beton`);
}

/** Shortens long paths in the middle for tables: "/very/long/…/file.beton". */
export function shortenPath(path: string, max = 48): string {
  if (path.length <= max) return path;
  const tail = basename(path);
  if (tail.length + 4 >= max) return `…${path.slice(path.length - max + 1)}`;
  return `${path.slice(0, max - tail.length - 2)}…/${tail}`;
}

/**
 * What a loader's throughput counts for a dataset of this schema: a video dataset's samples
 * are clips, an image dataset's images; anything else is samples.
 */
export function rateUnit(schema: ReadonlyArray<{ type: string }> | null | undefined): string {
  if (schema?.some((f) => f.type === FIELD_TYPE.videoClip)) return 'clips/s';
  if (!schema || schema.some((f) => f.type === FIELD_TYPE.rgbImage)) return 'images/s';
  return 'samples/s';
}

/** The JPEG decoder the host uses, in words (env.info's `decodePath` is an internal id). */
export function decoderLabel(path: string): string {
  if (path === 'turbojpeg-npm') return 'libjpeg-turbo (fast)';
  if (path === 'sharp') return 'sharp (slower fallback)';
  return path;
}
