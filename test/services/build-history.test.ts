/**
 * builds.list (issue 23: a reload lost the build history and every report): the host keeps
 * the builds it ran, newest first, with how each ended; bounded.
 */
import { describe, expect, it } from 'vitest';
import { BuildHistory, MAX_BUILDS } from '../../core/services/build-history.js';

const config = (n: number) => ({ source: { type: 'image_folder' as const, path: `/d/${n}` }, output: `/d/${n}.beton` });

describe('BuildHistory', () => {
  it('lists builds newest first, each as it ended (report, cancel message)', () => {
    const h = new BuildHistory();
    h.started('a', config(1), 1000);
    h.started('b', config(2), 2000);
    h.finish({ jobId: 'a', kind: 'build', status: 'cancelled', message: 'cancelled' }, 3000);
    const list = h.list();
    expect(list.map((e) => e.jobId)).toEqual(['b', 'a']);
    expect(list[0]).toMatchObject({ status: 'running', finishedAt: null, report: null });
    expect(list[1]).toMatchObject({ status: 'cancelled', finishedAt: 3000, message: 'cancelled', startedAt: 1000 });
    // A copy: the caller cannot change the host's record.
    list[1]!.status = 'ok';
    expect(h.list()[1]!.status).toBe('cancelled');
  });

  it(`keeps the last ${MAX_BUILDS}`, () => {
    const h = new BuildHistory();
    for (let i = 0; i < MAX_BUILDS + 5; i++) h.started(`j${i}`, config(i), i);
    const list = h.list();
    expect(list).toHaveLength(MAX_BUILDS);
    expect(list[0]!.jobId).toBe(`j${MAX_BUILDS + 4}`);
  });
});
