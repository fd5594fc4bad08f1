/**
 * The verdict on a training command's run (`beton profile --exec`): with the probe's step
 * lines, whether the step waits for its data — input-bound / balanced / compute-bound by the
 * share of step time spent waiting (the question TensorBoard's input-pipeline analyzer
 * answers, with its bands); with only image counts, the throughput and an outside view from
 * the samples, saying what it could not know. Pure. docs/profiler.md, "The probe".
 */
import * as f from './verdict-format.js';
import { diagnose } from './verdict.js';
import type { ExecMeasures, MachineInfo, TelemetrySample, Verdict } from '../../api/profile-model.js';

/**
 * Wait share bands: waiting more than `inputBound` of the step time is input-bound, less than
 * `computeBound` is compute-bound, between is balanced. TensorBoard's input-pipeline analyzer
 * uses the same bands ("highly input-bound" above 20% waiting, "not input-bound" below 5%).
 */
export const EXEC_THRESHOLDS = {
  inputBound: 0.2,
  computeBound: 0.05,
  /** GPU utilisation (%) above which a compute-bound step is said to be busy on the GPU. */
  gpuBusy: 90,
} as const;

const mean = (xs: number[]): number | null => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

function gpuUtil(samples: readonly TelemetrySample[]): number | null {
  return mean(samples.flatMap((s) => (s.gpus.length ? [s.gpus.reduce((a, g) => a + g.utilPercent, 0) / s.gpus.length] : [])));
}

function cpuMean(samples: readonly TelemetrySample[]): number | null {
  return mean(samples.filter((s) => s.cpuPerCore.length > 0).map((s) => s.cpuPerCore.reduce((a, b) => a + b, 0) / s.cpuPerCore.length));
}

const NO_PROBE =
  'Whether the step waits for data is not known: the command reported images but no step timing. Wrap the loader in the probe (from beton_probe import watch; for batch in watch(loader): …, docs/profiler.md "The probe") and run it again under beton profile --exec.';

/** The exec run's verdict, with its measures attached (Verdict.exec). */
export function diagnoseExec(m: ExecMeasures, samples: readonly TelemetrySample[], machine: MachineInfo): Verdict {
  if (m.waitShare === null || m.stepsPerSec === null || m.waitP50Ms === null || m.stepP50Ms === null) {
    // No step lines: the outside view (GPU, CPU, storage from the samples), and what is missing.
    const outside = diagnose([], samples, machine);
    if (m.imagesPerSec === null && m.steps === 0) {
      return {
        kind: 'unknown',
        summary: 'The command reported no images and no steps: there is no throughput to judge.',
        evidence: outside.evidence,
        advice: [
          'Print a JSON line per step ({"step": n, "images": N}) or wrap the loader in beton_probe.watch (docs/profiler.md).',
          ...outside.advice,
        ],
        exec: m,
      };
    }
    const evidence = outside.evidence.filter((e) => !e.startsWith('The command reported'));
    return {
      ...outside,
      summary: `${outside.summary} ${NO_PROBE.split(':')[0]}.`,
      evidence: [
        m.imagesPerSec !== null
          ? `The command reported ${f.ips(m.imagesPerSec)} while it produced images.`
          : 'The command reported no images.',
        NO_PROBE,
        ...evidence,
      ],
      exec: m,
    };
  }
  const share = m.waitShare;
  const kind = share > EXEC_THRESHOLDS.inputBound ? 'input-bound' : share < EXEC_THRESHOLDS.computeBound ? 'compute-bound' : 'balanced';
  const gpu = gpuUtil(samples);
  const cpu = cpuMean(samples);
  // Means, not medians: the share is their ratio, and a loader that is usually ahead waits 0 ms
  // at the median while a few long waits take a third of the time.
  const stepWords =
    m.waitMeanMs != null && m.stepMeanMs != null
      ? `${f.ms(m.waitMeanMs)} mean wait of a ${f.ms(m.stepMeanMs)} mean step`
      : `${f.ms(m.waitP50Ms)} median wait of a ${f.ms(m.stepP50Ms)} median step`;
  const summary =
    kind === 'input-bound'
      ? `Input-bound: the training step waited for data ${f.pct(share)} of its time (${stepWords}); a faster loader would speed training up.`
      : kind === 'compute-bound'
        ? `Compute-bound: the training step waited for data only ${f.pct(share)} of its time (${stepWords}); the loader keeps up, the step itself is the limit.`
        : `Balanced: the training step waited for data ${f.pct(share)} of its time (${stepWords}); the loader and the step both matter.`;
  const evidence = [
    `${f.count(m.steps, 'step')} reported, the first (start-up) left out: ${m.stepsPerSec.toFixed(1)} steps/s${m.imagesPerSec !== null ? `, ${f.ips(m.imagesPerSec)}` : ''}.`,
    `Wait for data per step: p50 ${f.ms(m.waitP50Ms)}, p95 ${f.ms(m.waitP95Ms ?? m.waitP50Ms)}; step p50 ${f.ms(m.stepP50Ms)}; waiting ${f.pct(share)} of the step time (input-bound above ${f.pct(EXEC_THRESHOLDS.inputBound)}, compute-bound below ${f.pct(EXEC_THRESHOLDS.computeBound)}).`,
    cpu !== null ? `CPU: ${f.pct(cpu)} mean over ${f.count(machine.cores, 'logical core')} (the whole machine).` : null,
    gpu !== null ? `GPU utilisation: ${gpu.toFixed(0)}% (mean).` : 'No GPU readings.',
  ].filter((x): x is string => x !== null);
  const advice =
    kind === 'input-bound'
      ? [
          'Profile the loader itself: beton profile FILE sweeps workers, batch size, order and cache and says what limits it (decode, storage, parallelism).',
          `Give the loader more workers (FFCV/PyTorch num_workers, up to the ${f.count(machine.cores, 'logical core')}) or more batches ahead${m.waitP95Ms !== null && m.waitP95Ms > 3 * Math.max(m.waitP50Ms, 0.001) ? ' (batches arrive unevenly: p95 wait is over 3× the median)' : ''}.`,
          'Make each sample cheaper to load: store raw or smaller images (beton build --write-mode, --max-resolution).',
        ]
      : kind === 'compute-bound'
        ? [
            'A faster loader will not speed this up: the step itself is the limit.',
            gpu !== null && gpu > EXEC_THRESHOLDS.gpuBusy
              ? 'The GPU is busy: mixed precision, channels_last, torch.compile, a larger batch if memory allows.'
              : 'Speed up the step: a larger batch, fewer host-device syncs, mixed precision or torch.compile on a GPU.',
            'Fewer loader workers may keep this speed and free CPU for the step (check with beton profile FILE).',
          ]
        : [
            'Both sides matter: a faster loader (beton profile FILE) and a faster step each gain a share; keep the loader ahead with more batches ahead.',
          ];
  return { kind, summary, evidence, advice, exec: m };
}
