import { describe, expect, it } from 'vitest';
import {
  ExecError,
  ThroughputMeter,
  compileThroughputRegex,
  parseJsonLine,
  parseRegexLine,
} from '../../core/profile/exec/exec-protocol.js';
import { LineSplitter } from '../../core/profile/exec/line-splitter.js';

describe('exec protocol: JSON lines', () => {
  it('reads cumulative images, steps × batch size and rates', () => {
    expect(parseJsonLine('{"step": 10, "images": 2560}')).toEqual({ kind: 'images', images: 2560 });
    expect(parseJsonLine('  {"images": 0}  ')).toEqual({ kind: 'images', images: 0 });
    expect(parseJsonLine('{"step": 10, "batch_size": 256, "loss": 0.3}')).toEqual({ kind: 'images', images: 2560 });
    expect(parseJsonLine('{"images_per_sec": 812.5}')).toEqual({ kind: 'ips', ips: 812.5 });
    // a count wins over a rate on the same line
    expect(parseJsonLine('{"images": 100, "images_per_sec": 5}')).toEqual({ kind: 'images', images: 100 });
  });

  it('ignores everything else', () => {
    for (const l of [
      '',
      'epoch 1 loss 0.3',
      '{"step": 10}',
      '{"images": -1}',
      '{"images": "12"}',
      '[1,2]',
      '{"images": 1',
      'INFO {"images": 5}',
      '{"loss": 0.1}',
      'null',
    ])
      expect(parseJsonLine(l)).toBeNull();
  });
});

describe('exec protocol: regex', () => {
  it('needs a named group images or ips', () => {
    expect(() => compileThroughputRegex('(\\d+) images')).toThrow(ExecError);
    expect(() => compileThroughputRegex('(?<images>[')).toThrow(/not a valid regular expression/);
    try {
      compileThroughputRegex('x');
    } catch (e) {
      expect((e as ExecError).code).toBe('BAD_REGEX');
    }
    expect(compileThroughputRegex(/(?<ips>\d+)/g).flags).not.toContain('g');
  });

  it('reads counts (with thousands separators) and rates', () => {
    const count = compileThroughputRegex('(?<images>[\\d,]+) images');
    expect(parseRegexLine('iter 10 | 1,280 images', count)).toEqual({ kind: 'images', images: 1280 });
    expect(parseRegexLine('nothing here', count)).toBeNull();
    const rate = compileThroughputRegex(/(?<ips>[\d.]+)\s*img\/s/);
    expect(parseRegexLine('throughput: 512.5 img/s', rate)).toEqual({ kind: 'ips', ips: 512.5 });
    expect(parseRegexLine('throughput: . img/s', rate)).toBeNull();
  });
});

describe('exec protocol: throughput per window', () => {
  it('gives the rate since the report before the window, holds it between reports, then falls to 0', () => {
    const m = new ThroughputMeter();
    // 1000 images/s, reported every 500 ms; windows of 250 ms
    m.record({ kind: 'images', images: 0 }, 100);
    expect(m.window(250)).toBeNull(); // one report is only a baseline
    expect(m.window(500)).toBeNull();
    m.record({ kind: 'images', images: 500 }, 600);
    expect(m.window(750)).toBe(1000);
    expect(m.window(1000)).toBe(1000); // held: the next report is not due yet
    m.record({ kind: 'images', images: 1250 }, 1100);
    expect(m.window(1250)).toBe(1500);
    expect(m.window(1500)).toBe(1500);
    expect(m.window(2000)).toBe(1500);
    expect(m.window(2500)).toBe(0); // 1.4 s of silence after reports 500 ms apart: stalled
    expect(m.imagesTotal).toBe(1250);
  });

  it('treats a count going down as a reset (per-epoch counters)', () => {
    const m = new ThroughputMeter();
    m.record({ kind: 'images', images: 900 }, 0);
    m.record({ kind: 'images', images: 1000 }, 100);
    m.record({ kind: 'images', images: 50 }, 200);
    expect(m.imagesTotal).toBe(1050);
    m.record({ kind: 'images', images: 150 }, 300);
    expect(m.window(300)).toBeCloseTo((1150 - 900) / 0.3, 6);
  });

  it('averages reported rates in a window and integrates them for a total', () => {
    const m = new ThroughputMeter();
    m.record({ kind: 'ips', ips: 100 }, 0);
    m.record({ kind: 'ips', ips: 300 }, 1000);
    expect(m.window(1000)).toBe(200);
    expect(m.imagesTotal).toBe(200);
    expect(m.window(1250)).toBe(200);
  });
});

describe('line splitter', () => {
  it('splits on \\n, \\r\\n and \\r, across chunks', () => {
    const lines: string[] = [];
    const s = new LineSplitter((l) => lines.push(l));
    s.push('a\nb');
    s.push('c\r\n 10%|#');
    s.push('\r 20%|##\rlast');
    s.end();
    expect(lines).toEqual(['a', 'bc', ' 10%|#', ' 20%|##', 'last']);
  });

  it('drops a runaway line without breaks', () => {
    const lines: string[] = [];
    const s = new LineSplitter((l) => lines.push(l), 8);
    s.push('0123456789');
    s.push('ab\nok\n');
    expect(lines).toEqual(['ab', 'ok']);
  });
});
