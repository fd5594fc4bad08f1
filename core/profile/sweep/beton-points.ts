import type { PointConfig, PointResult } from '../../api/profile-model.js';
import { pointLabel } from '../../api/profile-plan.js';
import { BetonError } from '../../format/errors.js';
import { Loader } from '../../loader/loader.js';
import { waitsSince } from '../../loader/loader-stats.js';
import { isRemoteUrl } from '../../remote/url.js';
import { loaderMemoryError } from '../engines/bench-loader.js';
import { pointResultOf, SLICES_PER_POINT, sliceRates, timerStages } from '../engines/engine-points.js';
import type { SweepRun } from './sweep-run.js';

/**
 * Our loader over the grid's beton points, in index order, each reported as it is measured.
 * 'cancelled' when the signal stops it between points (a point under way ends early and is kept).
 */
export async function measureBetonPoints(run: SweepRun): Promise<'ok' | 'cancelled'> {
  for (const [index, cfg] of run.grid.entries()) {
    if ((cfg.engine ?? 'beton') !== 'beton') continue;
    if (run.signal?.aborted) return 'cancelled';
    run.wait(`measuring point ${run.points.length + 1} of ${run.grid.length}: ${pointLabel(cfg)}`);
    await measureBetonPoint(run, index, cfg);
  }
  return 'ok';
}

/** One point: a Loader of its configuration, warmed up, then read for the plan's seconds. */
async function measureBetonPoint(run: SweepRun, index: number, cfg: PointConfig): Promise<void> {
  const { plan } = run;
  const loader = await Loader.open(plan.file, {
    batchSize: cfg.batchSize,
    numWorkers: cfg.workers,
    order: cfg.order,
    osCache: cfg.osCache,
    ...(plan.processCacheBytes !== undefined
      ? { processCacheBytes: plan.processCacheBytes, remote: { poolBytes: plan.processCacheBytes } }
      : {}),
    fastDecode: plan.fastDecode ?? false,
    ...(plan.batchesAhead !== undefined ? { batchesAhead: plan.batchesAhead } : {}),
    seed: 0,
    dropLast: true,
    ...(run.imageField ? { pipelines: { [run.imageField]: run.steps } } : {}),
  }).catch((e: unknown) => {
    throw loaderMemoryError(e, cfg.batchSize, plan.decoder);
  });
  try {
    // fitBatchSize ruled this out; kept so a sweep can never measure nothing silently.
    if (loader.length === 0)
      throw new BetonError('TOO_FEW_SAMPLES', `${plan.file} has fewer samples than one batch of ${cfg.batchSize}`, {
        hint: `Pass --batch-sizes ${run.numSamples} or less.`,
      });
    await warmUp(loader, plan.warmupBatches);
    run.report(await measure(run, loader, index, cfg));
  } finally {
    run.telemetry.setThroughput(null, null);
    await loader.close();
  }
}

/** The first batches pay for worker start-up and cold caches: read `batches` of them, across epochs if need be. */
async function warmUp(loader: Loader, batches: number): Promise<void> {
  let warm = 0;
  while (warm < batches) {
    for await (const _ of loader) {
      void _;
      if (++warm >= batches) return;
    }
  }
}

/** How often a point's read loop lets the event loop turn (see measure). */
const TURN_MS = 50;

/** Reads batches until the point's time is up (or the signal), timing each arrival; the point's result. */
async function measure(run: SweepRun, loader: Loader, index: number, cfg: PointConfig): Promise<PointResult> {
  const { plan, telemetry, meter, signal } = run;
  const before = loader.stats();
  const net = loader.reader.remote?.client.stats;
  const net0 = net ? { ...net } : null;
  const sampleFrom = telemetry.samples().length;
  telemetry.setThroughput(null, index);
  meter.start();
  const t0 = performance.now();
  const deadline = t0 + plan.secondsPerPoint * 1000;
  let images = 0;
  let batches = 0;
  const arrivals: Array<[number, number]> = [];
  let turn = t0;
  while (performance.now() < deadline && !signal?.aborted) {
    let asked = performance.now();
    for await (const b of loader) {
      const got = performance.now();
      meter.waitedFor(got - asked);
      meter.add(b.size);
      images += b.size;
      batches++;
      arrivals.push([got - t0, b.size]);
      if (got >= deadline || signal?.aborted) break;
      // `beton serve` measures in its own process, and a loader whose batches are ready never
      // leaves the microtask queue: requests and progress events waited for the whole point
      // (they reached the app in a burst at its end). One event-loop turn every 50 ms.
      if (got - turn >= TURN_MS) {
        await new Promise<void>((r) => setImmediate(r));
        turn = performance.now();
      }
      asked = performance.now();
    }
  }
  const seconds = Math.max(1e-6, (performance.now() - t0) / 1000);
  meter.stop();
  const after = loader.stats();
  const point = pointResultOf({
    index,
    config: cfg,
    images,
    seconds,
    batches,
    waits: waitsSince(before, after),
    slices: sliceRates(arrivals, seconds, SLICES_PER_POINT),
    samples: telemetry.samples().slice(sampleFrom),
    workerBusyMsPerBatch: batches ? (after.workerBusyMs - before.workerBusyMs) / batches : 0,
    pageCacheResident: await telemetry.pageCacheResidency(),
  });
  point.stages = timerStages(before, after, images);
  // The process cache's reads (OS cache off): pages re-read because the cache is smaller than what the order touches.
  if (!cfg.osCache && !isRemoteUrl(plan.file)) point.cacheReadBytes = (after.pagesRead - before.pagesRead) * loader.reader.pageSize;
  if (net && net0) {
    const requests = net.requests - net0.requests;
    point.network = {
      bytes: net.bytes - net0.bytes,
      requests,
      meanLatencyMs: requests > 0 ? (net.latencyMs - net0.latencyMs) / requests : 0,
    };
  }
  return point;
}
