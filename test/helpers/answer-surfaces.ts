/**
 * The checks that a profile run's answer reads the same on the service and in the CLI's text
 * (issue 27), shared by answer-surfaces.test.ts (a beton sweep) and answer-surfaces-ffcv.test.ts
 * (real FFCV, slow tier).
 */
import { expect } from 'vitest';
import type { ProfileAnswer } from '../../core/api/profile-answer.js';
import type { EngineName, ProfileRun } from '../../core/api/profile-model.js';
import { ENGINE_LABELS } from '../../core/api/profile-plan.js';
import { BetonService } from '../../core/services/beton-service.js';

/** The service's run record (runs.get) carries the same answer. */
export async function expectServiceAnswer(opts: { root: string; db: string; id: number; answer: ProfileAnswer }): Promise<void> {
  const service = new BetonService({ roots: [opts.root], host: 'server', dbPath: opts.db });
  try {
    const got = (await service.call('runs.get', { id: opts.id })) as { ok: true; value: ProfileRun };
    expect(got.ok).toBe(true);
    expect(got.value.answer).toEqual(opts.answer);
  } finally {
    service.close();
  }
}

/** `beton runs show`'s text: the starred row is the answer's point, and the headline quotes its number. */
export function expectTextQuotesAnswer(stdout: string, a: ProfileAnswer, engine: EngineName): void {
  const starred = stdout.split('\n').filter((l) => / \*\s/.test(l) && /^\s+\d/.test(l));
  expect(starred).toHaveLength(1);
  expect(starred[0]).toMatch(new RegExp(`^\\s+${a.best.point! + 1}\\s+${engine}`));
  const ips = (v: number): string => (v >= 100 ? Math.round(v).toLocaleString('en-US') : v.toFixed(1));
  expect(stdout).toContain(`${ENGINE_LABELS[engine]} · best point #${a.best.point! + 1}: ${ips(a.best.images_per_sec!)} img/s`);
}
