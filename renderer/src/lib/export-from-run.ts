import type { ExportForm } from './export-form.js';
import type { DecoderKind } from './profile-form.js';
import { answerOf, type PointResult, type ProfileRunView } from './types.js';

const bestOf = (points: readonly PointResult[]): PointResult | null =>
  points.reduce<PointResult | null>((b, p) => (!b || p.imagesPerSec > b.imagesPerSec ? p : b), null);

/**
 * The Export screen's settings for a stored sweep: its best point (FFCV's when FFCV was
 * measured: the export is FFCV code) with the plan's decoder, flip and batches ahead, so a
 * run from an earlier session exports as the live one did. Null for a run with no point
 * (a command run, a sweep that failed before its first point).
 */
export function exportFormFromRun(run: ProfileRunView): Partial<ExportForm> | null {
  if (run.kind !== 'sweep' || !('decoder' in run.plan)) return null;
  const plan = run.plan;
  // The run's one best (its answer's); runs recorded before answers: FFCV's fastest, else the fastest.
  const answered = answerOf(run)?.best.point;
  const ffcv = run.points.filter((p) => p.config.engine === 'ffcv');
  const best =
    (answered !== null && answered !== undefined ? run.points.find((p) => p.index === answered) : undefined) ??
    bestOf(ffcv.length ? ffcv : run.points);
  if (!best) return null;
  const [decoder, size] = plan.decoder.split(':');
  return {
    file: plan.file,
    batchSize: String(best.config.batchSize),
    numWorkers: String(best.config.workers),
    order: best.config.order,
    osCache: best.config.osCache,
    batchesAhead: plan.batchesAhead !== undefined ? String(plan.batchesAhead) : '',
    decoder: decoder as DecoderKind,
    ...(size ? { size } : {}),
    flip: plan.flip,
    normalize: false,
  };
}
