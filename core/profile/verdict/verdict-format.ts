import type { PointConfig } from '../../api/profile-model.js';

/** Number formatting for verdict sentences (fixed, locale-free: they end up in stored runs). */
/** Small shares keep a decimal: "0.3% of a step" says more than "0%". */
export const pct = (f: number): string => (f > 0 && f < 0.1 ? `${(f * 100).toFixed(1)}%` : `${Math.round(f * 100)}%`);

export const ips = (v: number): string => `${v >= 100 ? Math.round(v).toLocaleString('en-US') : v.toFixed(1)} img/s`;

export const ms = (v: number): string => `${v >= 10 ? v.toFixed(0) : v.toFixed(1)} ms`;

export function bytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${u === 0 ? v.toFixed(0) : v.toFixed(1)} ${units[u]}`;
}

/** "1 worker", "2 workers". */
export const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** Busy cores as the verdict quotes them ("2.0 of 2 logical cores busy"), one formatting for summary and evidence. */
export const cores = (busy: number, of: number): string => `${busy.toFixed(1)} of ${count(of, 'logical core')} busy`;

export const config = (c: PointConfig): string =>
  `${c.engine ? `${c.engine}: ` : ''}${count(c.workers, 'worker')}, batch ${c.batchSize}, ${c.order}, ${c.osCache ? 'OS cache' : 'process cache'}`;
