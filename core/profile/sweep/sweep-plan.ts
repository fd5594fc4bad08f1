import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import type { ProfilePlan } from '../../api/profile-model.js';
import { PROFILE_DEFAULTS, defaultWorkers } from '../../api/profile-plan.js';
import { isRemoteUrl } from '../../remote/url.js';

/** A plan with every default filled in (PROFILE_DEFAULTS), its paths absolute: what a run records. */
export function completePlan(p: Partial<ProfilePlan> & { file: string }): ProfilePlan {
  return {
    file: isRemoteUrl(p.file) ? p.file : resolve(p.file),
    // Default worker grid: 1, 2, 4, … up to the core count, and the core count.
    workers: p.workers?.length ? p.workers : defaultWorkers(availableParallelism()),
    batchSizes: p.batchSizes?.length ? p.batchSizes : [PROFILE_DEFAULTS.batchSize],
    orders: p.orders?.length ? p.orders : [...PROFILE_DEFAULTS.orders],
    osCache: p.osCache?.length ? p.osCache : [...PROFILE_DEFAULTS.osCache],
    decoder: p.decoder ?? PROFILE_DEFAULTS.decoder,
    flip: p.flip ?? PROFILE_DEFAULTS.flip,
    // Only when asked: plans stored before the option keep their shape.
    ...(p.fastDecode ? { fastDecode: true } : {}),
    ...(p.batchesAhead !== undefined ? { batchesAhead: p.batchesAhead } : {}),
    secondsPerPoint: p.secondsPerPoint ?? PROFILE_DEFAULTS.secondsPerPoint,
    warmupBatches: p.warmupBatches ?? PROFILE_DEFAULTS.warmupBatches,
    // Only when asked, as above.
    ...(p.engines?.length ? { engines: [...new Set(p.engines)] } : {}),
    ...(p.source ? { source: resolve(p.source) } : {}),
    ...(p.stages ? { stages: true } : {}),
    ...(p.trainWith ? { trainWith: p.trainWith } : {}),
    ...(p.processCacheBytes !== undefined ? { processCacheBytes: p.processCacheBytes } : {}),
  };
}
