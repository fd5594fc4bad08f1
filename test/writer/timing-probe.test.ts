// Issue 23 item 2: the writer's timings are a probe object, a no-op when off (no clock
// reads, no report), instead of `if (timings)` checks threaded through placement.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { IntField } from '../../core/fields/int-field.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';
import { timingProbe } from '../../core/writer/timing-probe.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-probe-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('timing probe', () => {
  it('off: marks are 0 and there is no report', () => {
    const p = timingProbe(false);
    expect(p.start()).toBe(0);
    p.stop('placeMs', 0);
    expect(p.report(10, 1)).toBeNull();
  });

  it('on: placement is reported without the page writes inside it', () => {
    const p = timingProbe(true);
    const t = p.start();
    expect(t).toBeGreaterThan(0);
    p.stop('placeMs', t - 50);
    p.stop('pageWriteMs', t - 20);
    const r = p.report(100, 5)!;
    expect(r.wallMs).toBe(100);
    expect(r.main.finishMs).toBe(5);
    expect(r.main.pageWriteMs).toBeGreaterThanOrEqual(20);
    // Placement took 50+ ms of which 20+ were page writes: reported apart, they add back up.
    expect(r.main.placeMs + r.main.pageWriteMs).toBeGreaterThanOrEqual(50);
    expect(r.workers).toEqual([]);
  });

  it('the writer reports timings only when asked, with one account per encode worker', async () => {
    const rows = Array.from({ length: 50 }, (_, i) => ({ x: i }));
    const off = await new DatasetWriter(join(dir, 'off.beton'), { x: new IntField() }, { numWorkers: 1 }).write(rows);
    expect(off.timings).toBeUndefined();
    const on = await new DatasetWriter(join(dir, 'on.beton'), { x: new IntField() }, { numWorkers: 2, chunkSize: 10, timings: true }).write(
      rows,
    );
    expect(on.timings?.workers).toHaveLength(2);
    // Placing 50 rows and finishing the file take measurable time: a zero is a timer not wired.
    expect(on.timings?.main.placeMs).toBeGreaterThan(0);
    expect(on.timings?.main.finishMs).toBeGreaterThan(0);
  });
});
