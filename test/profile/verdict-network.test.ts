import { describe, expect, it } from 'vitest';
import { diagnose } from '../../core/profile/verdict/verdict.js';
import type { MachineInfo, PointResult } from '../../core/api/profile-model.js';

const machine: MachineInfo = { hostname: 'box', cpuModel: 'CPU', cores: 8, ramBytes: 2 ** 36, os: 'Linux', node: 'v20', gpus: [] };

/** A 10 s point, batch 64 at 200 img/s, the consumer waiting 250 of its 320 ms step, CPUs 10% busy. */
function point(network?: PointResult['network']): PointResult {
  return {
    index: 0,
    config: { workers: 4, batchSize: 64, order: 'quasi_random', osCache: true },
    images: 2000,
    seconds: 10,
    imagesPerSec: 200,
    batchesPerSec: 200 / 64,
    waitP50Ms: 250,
    waitP95Ms: 300,
    workerBusyMsPerBatch: 100,
    cpuPerCore: new Array<number>(8).fill(0.1),
    rssPeakBytes: 2 ** 30,
    diskReadBytes: 0,
    pageCacheResident: null,
    gpuUtilMean: null,
    ...(network ? { network } : {}),
  };
}

describe('verdict: network-bound', () => {
  it('a sweep over a remote file that waits while bytes flow and CPUs idle is network-bound, with the fetch advice', () => {
    const v = diagnose([point({ bytes: 400 * 2 ** 20, requests: 50, meanLatencyMs: 180 })], [], machine);
    expect(v.kind).toBe('network-bound');
    expect(v.summary).toMatch(/40\.0 MiB\/s arrive over the network/);
    expect(v.summary).toMatch(/180 ms/);
    expect(v.advice.join(' ')).toMatch(/batches ahead/);
  });

  it('the same point on a local file is not', () => {
    expect(diagnose([point()], [], machine).kind).not.toBe('network-bound');
  });
});
