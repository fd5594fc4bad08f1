import { cpus } from 'node:os';
import { describe, expect, it } from 'vitest';
import { busyFractions, cpuTimesFromOs, createCpuSampler, parseProcStat, readCpuTimes } from '../../core/profile/sampling/cpu-sampler.js';

const STAT = `cpu  300 0 60 600 40 0 0 0 0 0
cpu0 100 10 20 300 20 5 5 0 50 0
cpu2 200 0 40 300 20 0 0 10 0 0
intr 12345
ctxt 999
`;

describe('cpu sampler', () => {
  it('parses per-CPU lines of /proc/stat, keeping kernel numbering across offline CPUs', () => {
    const t = parseProcStat(STAT);
    expect(t).toHaveLength(3);
    // busy = user nice system irq softirq steal (guest is inside user); idle = idle + iowait
    expect(t[0]).toEqual({ busy: 140, total: 460 });
    expect(t[1]).toEqual({ busy: 0, total: 0 });
    expect(t[2]).toEqual({ busy: 250, total: 570 });
  });

  it('turns two readings into busy fractions, clamped to 0..1', () => {
    const prev = [
      { busy: 100, total: 400 },
      { busy: 50, total: 100 },
      { busy: 10, total: 10 },
    ];
    const next = [
      { busy: 150, total: 500 },
      { busy: 40, total: 200 },
      { busy: 10, total: 10 },
      { busy: 5, total: 10 },
    ];
    expect(busyFractions(prev, next)).toEqual([0.5, 0, 0, 0.5]);
  });

  it('reads os.cpus() times as a fallback', () => {
    expect(cpuTimesFromOs([{ times: { user: 10, nice: 1, sys: 4, idle: 80, irq: 5 } }])).toEqual([{ busy: 20, total: 100 }]);
  });

  it('samples every logical CPU of this machine', async () => {
    expect((await readCpuTimes()).length).toBeGreaterThanOrEqual(cpus().length);
    const s = await createCpuSampler();
    const until = Date.now() + 150;
    let x = 0;
    while (Date.now() < until) x += Math.sqrt(x + 1); // keep one core busy
    const f = await s.sample();
    expect(f.length).toBeGreaterThanOrEqual(cpus().length);
    for (const v of f) {
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThanOrEqual(1);
    }
    expect(f.reduce((a, b) => a + b, 0)).toBeGreaterThan(0.3);
  });
});
