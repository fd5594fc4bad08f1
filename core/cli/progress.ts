import type { WriteStream } from 'node:tty';

export interface ProgressState {
  done: number;
  total: number | null;
  rate: number;
  etaMs: number | null;
  skipped?: number;
}

const fmtTime = (ms: number): string => {
  const s = Math.max(0, Math.round(ms / 1000));
  return s >= 3600
    ? `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`
    : `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
};

/**
 * A progress bar on a TTY (redrawn in place, at most 10×/s), plain lines otherwise
 * (one every few seconds), so logs of CI jobs stay readable.
 */
export class ProgressBar {
  private last = 0;
  private readonly tty: boolean;

  constructor(
    private readonly label: string,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {
    this.tty = Boolean((stream as WriteStream).isTTY);
  }

  update(s: ProgressState, force = false): void {
    const now = Date.now();
    if (!force && now - this.last < (this.tty ? 100 : 5000)) return;
    this.last = now;
    const count = s.total !== null ? `${s.done}/${s.total}` : `${s.done}`;
    const rate = `${s.rate.toFixed(1)}/s`;
    const eta = (s.etaMs !== null ? ` ETA ${fmtTime(s.etaMs)}` : '') + (s.skipped ? ` (${s.skipped} skipped)` : '');
    if (!this.tty) {
      this.stream.write(`${this.label}: ${count} ${rate}${eta}\n`);
      return;
    }
    const width = 30;
    const frac = s.total ? Math.min(1, s.done / s.total) : 0;
    const bar = s.total ? `[${'#'.repeat(Math.round(frac * width)).padEnd(width, '.')}] ${(frac * 100).toFixed(0).padStart(3)}% ` : '';
    this.stream.write(`\r${this.label} ${bar}${count} ${rate}${eta}\x1b[K`);
  }

  done(): void {
    if (this.tty) this.stream.write('\n');
  }
}
