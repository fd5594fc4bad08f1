/**
 * The loader config `beton export` writes code for: from flags over a .beton file, or from a
 * point of a stored profile run. One function builds the pipelines for both, with the same
 * defaults as `beton profile` (rrc:160 and a random flip), so that the exported loader is the
 * one that was, or would be, profiled — not a second set of defaults (issue 30).
 */
import type { LoaderConfigInput } from '../api/loader-config.js';
import type { PointResult, ProfilePlan } from '../api/profile-model.js';
import type { StoredRun } from '../api/runs-model.js';
import { NDARRAY_IDENTITY, TORCH_TENSOR_IDENTITY } from '../fields/ndarray-field.js';
import { RGB_IMAGE_IDENTITY } from '../fields/rgb-image-field.js';
import { VIDEO_CLIP_IDENTITY } from '../fields/video-clip-field.js';
import { BetonError } from '../format/errors.js';
import { fitBatchSize } from '../profile/engines/bench-loader.js';
import { bestPoint } from '../profile/verdict/verdict-measure.js';
import { Reader } from '../reader/reader.js';

type Pipelines = NonNullable<LoaderConfigInput['pipelines']>;

/** The decoders and flip of an export, in the words of the CLI and of a profile plan. */
export interface PipelineSpec {
  /** 'simple' | 'rrc:SIZE' | 'center:SIZE' (image fields). */
  decoder: string;
  /** 'simple' | 'rrc:SIZE' (video clip fields). */
  clipDecoder: string;
  flip: boolean;
}

/** `beton profile`'s default pipeline: what an export writes when it is told nothing else. */
export const PROFILE_PIPELINE: PipelineSpec = { decoder: 'rrc:160', clipDecoder: 'simple', flip: true };

/** A bad --decoder / --clip-decoder: the CLI's usage error (exit 2), with these words. */
export class PipelineSpecError extends Error {}

/**
 * A pipeline for every field (FFCV's default decoder for the type; the spec's decoder and flip
 * for images and clips), so that the exported code says what each batch holds.
 */
export function pipelinesFor(fields: ReadonlyArray<{ name: string; type: string }>, spec: PipelineSpec): Pipelines {
  const m = /^(simple|rrc|center)(?::(\d+))?$/.exec(spec.decoder);
  if (!m || (m[1] !== 'simple' && !m[2]))
    throw new PipelineSpecError(`--decoder expects simple, rrc:SIZE or center:SIZE, got "${spec.decoder}"`);
  const size = Number(m[2]);
  const c = /^(simple|rrc)(?::(\d+))?$/.exec(spec.clipDecoder);
  if (!c || (c[1] === 'rrc' && !c[2])) throw new PipelineSpecError(`--clip-decoder expects simple or rrc:SIZE, got "${spec.clipDecoder}"`);
  const clipSize = Number(c[2]);
  const flip = spec.flip ? { flip: 0.5 } : {};
  // No prototype: a field named `__proto__` or `toString` is an entry like any other (issue 19 item 8).
  const pipelines = Object.create(null) as Pipelines;
  for (const { name, type } of fields) {
    if (type === RGB_IMAGE_IDENTITY.type) {
      const decoder =
        m[1] === 'simple'
          ? { decoder: 'simple_rgb' as const }
          : m[1] === 'rrc'
            ? { decoder: 'random_resized_crop' as const, size: [size, size] as [number, number] }
            : { decoder: 'center_crop' as const, size: [size, size] as [number, number] };
      pipelines[name] = [decoder, ...(spec.flip ? [{ op: 'random_horizontal_flip' as const }] : []), { op: 'to_chw' as const }];
    } else if (type === VIDEO_CLIP_IDENTITY.type) {
      pipelines[name] = [
        c[1] === 'simple'
          ? { decoder: 'clip_simple', ...flip }
          : { decoder: 'clip_random_resized_crop', size: [clipSize, clipSize], ...flip },
      ];
    } else if (type === 'int') pipelines[name] = [{ decoder: 'int' }];
    else if (type === 'float') pipelines[name] = [{ decoder: 'float' }];
    else if (type === NDARRAY_IDENTITY.type || type === TORCH_TENSOR_IDENTITY.type) pipelines[name] = [{ decoder: 'ndarray' }];
    else if (type === 'bytes' || type === 'json') pipelines[name] = [{ decoder: 'bytes' }];
  }
  return pipelines;
}

/** A loader config and the comment line that says where it came from. */
export interface RunExport {
  config: LoaderConfigInput;
  /** "profile run 12, point #3 of 4 (…): 1520 img/s measured" — written into the code. */
  origin: string;
}

const isSweep = (plan: StoredRun['plan']): plan is ProfilePlan => 'decoder' in plan;

/**
 * The point of a stored sweep to export: `point` (1-based, as `beton runs show` numbers them),
 * else the fastest one an FFCV Loader was measured at — FFCV's own points when the sweep ran
 * the ffcv engine (the export is FFCV code; the app's Export from a run picks alike), else
 * ours; never a torch engine's (torchvision over the source folder, not a .beton loader).
 */
export function pickPoint(run: StoredRun, runId: number, point?: number): { plan: ProfilePlan; chosen: PointResult } {
  const plan = run.plan;
  if (!isSweep(plan))
    throw new BetonError('BAD_OPTIONS', `run ${runId} profiled a training command: it has no loader settings to export`, {
      hint: 'Export a loader sweep (beton runs list shows each run’s kind), or export the .beton file with flags.',
    });
  if (point !== undefined) {
    const chosen = run.points.find((p) => p.index + 1 === point);
    if (!chosen)
      throw new BetonError('BAD_OPTIONS', `run ${runId} has no point #${point} (it has ${run.points.length})`, {
        hint: `beton runs show ${runId} lists its points.`,
      });
    if (chosen.config.engine === 'torch')
      throw new BetonError('BAD_OPTIONS', `point #${point} of run ${runId} measured torchvision, not a .beton loader`, {
        hint: `Pick a beton or ffcv point (beton runs show ${runId}).`,
      });
    return { plan, chosen };
  }
  const ffcv = run.points.filter((p) => p.config.engine === 'ffcv');
  const chosen = bestPoint(ffcv.length ? ffcv : run.points.filter((p) => (p.config.engine ?? 'beton') === 'beton'));
  if (!chosen)
    throw new BetonError('BAD_OPTIONS', `run ${runId} has no measured loader point to export`, {
      hint: 'Profile the file again (beton profile FILE), or export it with flags (beton export FILE).',
    });
  return { plan, chosen };
}

/** The comment that names where exported settings came from: run, point, what it measured. */
export function runOrigin(run: StoredRun, runId: number, point?: number): string {
  const { plan, chosen } = pickPoint(run, runId, point);
  const c = chosen.config;
  const engine = c.engine ?? 'beton';
  const fastest = point === undefined ? ` (the fastest${engine === 'ffcv' ? ' FFCV point' : ''})` : '';
  return (
    `profile run ${runId}, point #${chosen.index + 1} of ${run.points.length}${fastest}: ${engine} engine, ` +
    `${c.workers} worker${c.workers === 1 ? '' : 's'}, batch ${c.batchSize}, ${c.order}, ${c.osCache ? 'os cache' : 'process cache'}, ` +
    `${plan.decoder}${plan.flip ? ' + flip' : ''}: ${chosen.imagesPerSec.toFixed(0)} img/s measured on ${run.startedAt.slice(0, 10)}`
  );
}

/**
 * The loader of a stored sweep's point (see pickPoint): its workers, batch, order and cache,
 * and the plan's decoder, flip and batches ahead; with the comment that names them.
 */
export function loaderFromRun(run: StoredRun, runId: number, point?: number): RunExport {
  const { plan, chosen } = pickPoint(run, runId, point);
  const c = chosen.config;
  const config: LoaderConfigInput = {
    file: run.dataset?.path ?? plan.file,
    batchSize: c.batchSize,
    numWorkers: c.workers,
    order: c.order,
    osCache: c.osCache,
    ...(plan.batchesAhead !== undefined ? { batchesAhead: plan.batchesAhead } : {}),
    pipelines: pipelinesFor(run.dataset?.schema ?? [], { decoder: plan.decoder, clipDecoder: 'simple', flip: plan.flip }),
  };
  return { config, origin: runOrigin(run, runId, point) };
}

/** What `beton export FILE` was told about the loader (absent: `beton profile`'s defaults). */
export interface FileExportFlags {
  batchSize?: number;
  workers?: number;
  order?: LoaderConfigInput['order'];
  osCache: boolean;
  spec: PipelineSpec;
}

/**
 * The loader config for a .beton file: a pipeline for every field, and the batch as `beton
 * profile` picks it — the default 256 capped at the file's samples (saying so through
 * `note`), a given batch larger than the file refused — so that the exported code yields
 * batches: FFCV's Loader drops the last partial batch, and a 200-sample file with batch 256
 * yielded none.
 */
export async function loaderFromFile(file: string, flags: FileExportFlags, note?: (message: string) => void): Promise<LoaderConfigInput> {
  const reader = await Reader.open(file);
  try {
    const pipelines = pipelinesFor(
      reader.fields.map(({ name, field }) => ({ name, type: field.type })),
      flags.spec,
    );
    return {
      file,
      batchSize: fitBatchSize(file, reader.numSamples, flags.batchSize, '--batch-size', note),
      ...(flags.workers !== undefined ? { numWorkers: flags.workers } : {}),
      order: flags.order ?? 'random',
      osCache: flags.osCache,
      pipelines,
    };
  } finally {
    reader.close();
  }
}
