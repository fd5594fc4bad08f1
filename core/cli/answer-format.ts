import type { ProfileAnswer } from '../api/profile-answer.js';
import type { EngineFailure } from '../api/profile-model.js';
import { ENGINE_LABELS } from '../api/profile-plan.js';
import { actionCommand } from '../profile/verdict/action-command.js';

const ips = (v: number | null): string => (v === null ? '-' : `${v >= 100 ? Math.round(v).toLocaleString('en-US') : v.toFixed(1)} img/s`);

/**
 * The answer as `beton profile` and `beton runs show` print it: the bottleneck and summary,
 * the evidence, each engine's best against the trained-with one, and the actions as the
 * commands that carry them out (core/profile/verdict/action-command.ts). Every number is the answer's.
 */
export function formatAnswer(a: ProfileAnswer, indent = ''): string[] {
  const out: string[] = [];
  const best = a.best.point !== null ? ` · best point #${a.best.point + 1}` : '';
  out.push(
    `${indent}${a.bottleneck.toUpperCase()}${a.contended ? ' (contended)' : ''} · ${a.engine === 'exec' ? 'your command' : ENGINE_LABELS[a.engine]}${best}: ${ips(a.best.images_per_sec)}${a.noise !== null ? ` (noise ±${((a.noise / 2) * 100).toFixed(0)}%)` : ''}`,
  );
  out.push(`${indent}${a.summary}`);
  for (const e of a.evidence) out.push(`${indent}  • ${e}`);
  const engines = Object.entries(a.engines);
  if (engines.length > 1) {
    out.push(`${indent}engines:`);
    for (const [name, e] of engines)
      out.push(
        `${indent}  ${name.padEnd(6)} ${ips(e.best_images_per_sec).padStart(12)}${e.vs_trained_with !== null ? `  ${e.vs_trained_with.toFixed(2)}×` : ''}${name === a.engine ? '  (you train with it)' : ''}`,
      );
  }
  if (a.actions.length) {
    out.push(`${indent}next:`);
    a.actions.forEach((x, i) => {
      out.push(`${indent}  ${i + 1}. ${x.label}`);
      const cmd = actionCommand(x);
      if (cmd) out.push(`${indent}     $ ${cmd}`);
    });
  }
  return out;
}

/** Engines that failed: one line each (the traceback with `detail`: beton runs show prints it). */
export function formatEngineFailures(failures: readonly EngineFailure[], detail: boolean, indent = ''): string[] {
  return failures.flatMap((f) => [
    `${indent}engine failed: ${f.engine} (after ${f.measured} point${f.measured === 1 ? '' : 's'}): ${f.message}`,
    ...(detail && f.detail ? f.detail.split('\n').map((l) => `${indent}    ${l}`) : []),
  ]);
}
