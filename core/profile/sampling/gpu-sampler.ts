import { execFile, spawn } from 'node:child_process';
import type { GpuInfo, GpuReading } from '../../api/profile-model.js';

/** One parsed nvidia-smi line; any value the GPU does not report is null. */
export interface GpuLine {
  index: number;
  name: string;
  utilPercent: number | null;
  memoryUsedMiB: number | null;
  memoryTotalMiB: number | null;
  powerW: number | null;
}

const QUERY = 'index,name,utilization.gpu,memory.used,memory.total,power.draw';
const INVENTORY = 'index,name,memory.total';

/**
 * A value of nvidia-smi's CSV: "35", " 70.12 ", "35 %" (if units slip in) → number;
 * "[N/A]", "[Not Supported]", "[Unknown Error]", "" → null. Number('') is 0, hence the regex.
 */
export function parseSmiNumber(s: string | undefined): number | null {
  const m = /^\s*(-?\d+(?:\.\d+)?)/.exec(s ?? '');
  return m ? Number(m[1]) : null;
}

/**
 * A line of `--query-gpu=index,name,utilization.gpu,memory.used,memory.total,power.draw`.
 * The name sits between fixed numeric columns, so a name holding a comma survives.
 */
export function parseGpuLine(line: string): GpuLine | null {
  const parts = line.split(',');
  if (parts.length < 6) return null;
  const index = parseSmiNumber(parts[0]);
  if (index == null || !Number.isInteger(index)) return null;
  const tail = parts.slice(-4);
  return {
    index,
    name: parts.slice(1, -4).join(',').trim(),
    utilPercent: parseSmiNumber(tail[0]),
    memoryUsedMiB: parseSmiNumber(tail[1]),
    memoryTotalMiB: parseSmiNumber(tail[2]),
    powerW: parseSmiNumber(tail[3]),
  };
}

/**
 * The data model's GpuReading has no room for an unknown utilisation or memory (MIG slices
 * report "[N/A]"), and a made-up 0 would read as an idle GPU to the verdict — such a GPU is
 * left out of the tick instead. Power is optional in the model.
 */
export function toReading(l: GpuLine): GpuReading | null {
  if (l.utilPercent == null || l.memoryUsedMiB == null) return null;
  return { index: l.index, utilPercent: l.utilPercent, memoryUsedMiB: l.memoryUsedMiB, powerW: l.powerW };
}

/** A line of `--query-gpu=index,name,memory.total`. */
export function parseInventoryLine(line: string): GpuInfo | null {
  const parts = line.split(',');
  if (parts.length < 3) return null;
  const index = parseSmiNumber(parts[0]);
  const mem = parseSmiNumber(parts[parts.length - 1]);
  if (index == null || !Number.isInteger(index)) return null;
  return { index, name: parts.slice(1, -1).join(',').trim(), memoryTotalMiB: mem ?? 0 };
}

export interface GpuSamplerOptions {
  /** Sampling period for nvidia-smi's -lms (clamped to >= 50 ms). */
  intervalMs: number;
  /** One call per tick: a reading per GPU that reported numbers. */
  onReading: (readings: GpuReading[]) => void;
  /** Called at most once, with a reason starting "no GPU:", when nvidia-smi cannot run or stops on its own. */
  onUnavailable?: (reason: string) => void;
}

export interface GpuSampler {
  /** Kills nvidia-smi; no callback fires afterwards. */
  stop(): void;
}

/**
 * Runs `nvidia-smi --query-gpu=… -lms INTERVAL` as one long-lived child (starting it for every
 * sample costs ~0.5 s of CPU each time) and turns its lines into ticks.
 *
 * A tick is one line per GPU with no marker between ticks, so lines are grouped two ways: a GPU
 * index seen again starts a new tick, and a short quiet gap after a burst ends the current one
 * (so the latest tick is not held back until the next one arrives).
 */
export function startGpuSampler(o: GpuSamplerOptions): GpuSampler {
  const interval = Math.max(50, Math.round(o.intervalMs));
  const quietMs = Math.min(50, interval / 2);
  let stopped = false;
  let reported = false;
  const unavailable = (reason: string): void => {
    if (stopped || reported) return;
    reported = true;
    o.onUnavailable?.(reason);
  };

  let tick: GpuReading[] = [];
  const seen = new Set<number>();
  let quiet: NodeJS.Timeout | null = null;
  const flush = (): void => {
    if (quiet) clearTimeout(quiet);
    quiet = null;
    if (seen.size === 0 || stopped) return;
    const out = tick;
    tick = [];
    seen.clear();
    o.onReading(out);
  };

  let child: ReturnType<typeof spawn>;
  try {
    child = spawn('nvidia-smi', [`--query-gpu=${QUERY}`, '--format=csv,noheader,nounits', '-lms', String(interval)], {
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
    });
  } catch (e) {
    unavailable(`no GPU: could not start nvidia-smi (${(e as Error).message})`);
    return { stop: () => void (stopped = true) };
  }

  let partial = '';
  let lastText = '';
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const raw of lines) {
      const line = raw.trim();
      if (line === '') continue;
      const parsed = parseGpuLine(line);
      if (!parsed) {
        lastText = line; // e.g. "No devices were found": quoted if nvidia-smi then exits
        continue;
      }
      if (seen.has(parsed.index)) flush();
      seen.add(parsed.index);
      const r = toReading(parsed);
      if (r) tick.push(r);
    }
    if (quiet) clearTimeout(quiet);
    quiet = setTimeout(flush, quietMs);
  });
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    const line = chunk.trim().split('\n').pop()?.trim();
    if (line) lastText = line.slice(0, 300);
  });
  child.on('error', (e: NodeJS.ErrnoException) => {
    unavailable(e.code === 'ENOENT' ? 'no GPU: nvidia-smi not found on PATH' : `no GPU: could not run nvidia-smi (${e.message})`);
  });
  // 'close' rather than 'exit': it comes after the last stdout data, so the final tick is in.
  child.on('close', (code, signal) => {
    flush();
    const how = code != null ? `exited with code ${code}` : `was killed by ${signal ?? 'a signal'}`;
    unavailable(`no GPU: nvidia-smi ${how}${lastText ? `: ${lastText}` : ''}`);
  });

  return {
    stop() {
      if (stopped) return;
      stopped = true;
      if (quiet) clearTimeout(quiet);
      // Never kill() a child that did not spawn (nvidia-smi missing): Node keeps its handle
      // with no pid, and libuv then signals an uninitialised pid — 0 is our own process group.
      if (child.pid != null && child.exitCode == null && child.signalCode == null) child.kill('SIGTERM');
    },
  };
}

/** The machine's GPUs from one nvidia-smi query; [] when there is no nvidia-smi, no driver or no GPU. */
export function gpuInventory(opts: { timeoutMs?: number } = {}): Promise<GpuInfo[]> {
  return new Promise((resolve) => {
    try {
      execFile(
        'nvidia-smi',
        [`--query-gpu=${INVENTORY}`, '--format=csv,noheader,nounits'],
        { timeout: opts.timeoutMs ?? 10_000, windowsHide: true },
        (err, stdout) => {
          if (err) return resolve([]);
          const gpus = String(stdout)
            .split('\n')
            .map((l) => parseInventoryLine(l))
            .filter((g): g is GpuInfo => g != null);
          resolve(gpus);
        },
      );
    } catch {
      resolve([]);
    }
  });
}
