import { FIELD_TYPE } from '../../../core/api/constants.js';
import { call } from '../lib/api.js';
import { useState } from 'react';
import {
  exportPatch,
  execSweepPatch,
  pointOf,
  rebuildPatch,
  runCommandPatch,
  sweepPatch,
  switchEnginePatch,
} from '../lib/answer-actions.js';
import { formatCompact, formatRate } from '../lib/format.js';
import { pointLabel } from '../lib/profile-form.js';
import { rateNoun } from '../lib/run-rates.js';
import type { AnswerAction, EngineName, PointConfig, ProfileAnswer } from '../lib/types.js';
import { useExportStore } from '../stores/export.js';
import { useProfilesStore } from '../stores/profiles.js';
import { useSourcesStore } from '../stores/sources.js';
import { useUiStore } from '../stores/ui.js';
import { InlineMarkdown } from './InlineMarkdown.js';
import { answerBest } from './PointsTable.js';

const ENGINE_LABEL: Record<EngineName | 'exec', string> = {
  beton: 'beton (ours)',
  ffcv: 'FFCV',
  torch: 'PyTorch DataLoader',
  exec: 'your training command',
};

/** The bottleneck's tone on its badge: contention and unknown are warnings about the measurement, the rest findings. */
const TONE: Partial<Record<ProfileAnswer['bottleneck'], string>> = { contention: 'warn', unknown: 'neutral', balanced: 'good' };

/** What the run measured that an action may need: the dataset, the plan's decoder and flip, the points. */
export interface AnswerContext {
  file: string;
  plan: { decoder?: string; flip?: boolean; batchesAhead?: number } | null;
  points: ReadonlyArray<{ index: number; config: PointConfig; imagesPerSec: number }>;
  /** The build's source folder, when the run knows it (a rebuild opens the Build form on it). */
  source?: string | null;
}

/** The best point's line: "1,332 img/s · FFCV · 4w · bs 256 · random · os cache" (the answer's number, never recomputed). */
export function bestText(answer: ProfileAnswer, points: AnswerContext['points'], unit: string): string {
  const b = answer.best;
  if (b.images_per_sec === null) return 'nothing measured';
  const pt = answerBest(points, b.point);
  // A training command's point is its filled-in workers and batch size: the loader's order and cache are not its settings.
  const label = !pt
    ? ''
    : answer.engine === 'exec'
      ? ` · ${pt.config.workers} worker${pt.config.workers === 1 ? '' : 's'}${pt.config.batchSize > 0 ? ` · batch ${pt.config.batchSize}` : ''}`
      : ` · ${pointLabel(pt.config)}`;
  return `${formatRate(b.images_per_sec, rateNoun(unit))}${label}`;
}

/** The source folder or file of the newest build on this host that wrote `file` (builds.list), or null. */
async function sourceOf(file: string): Promise<string | null> {
  if (!file) return null;
  try {
    const builds = await call('builds.list', {});
    const b = builds.filter((x) => x.config.output === file && x.status === 'ok').sort((x, y) => y.startedAt - x.startedAt)[0];
    return b?.config.source.path ?? null;
  } catch {
    return null; // an older host: the Build form opens as it is
  }
}

/**
 * Carries an action out in the app: it prefills the form that does it and opens that screen.
 * Nothing starts by itself: the user reads the prefilled form and presses Start / Build / Export.
 */
export function useAnswerAction(ctx: AnswerContext, bestPoint: number | null): (a: AnswerAction) => Promise<void> {
  const setScreen = useUiStore((u) => u.setScreen);
  return async (a) => {
    const profiles = useProfilesStore.getState();
    const note = `Prefilled from the answer: ${a.label}`;
    switch (a.id) {
      case 'resweep':
      case 'reprofile-idle':
      case 'profile-loader':
        profiles.setForm({ ...(ctx.file ? { file: ctx.file } : {}), ...sweepPatch(a.params) });
        profiles.setPrefill(note);
        setScreen('profile');
        break;
      case 'exec-sweep':
        profiles.setForm(execSweepPatch(a.params));
        profiles.setPrefill(note);
        setScreen('profile');
        break;
      case 'run-command':
        profiles.setForm(runCommandPatch(a.params));
        profiles.setPrefill(note);
        setScreen('profile');
        break;
      case 'switch-engine':
        profiles.setForm({ ...(ctx.file ? { file: ctx.file } : {}), ...switchEnginePatch(a.params, profiles.form) });
        profiles.setPrefill(note);
        setScreen('profile');
        // The engine selector is what changed: bring it into view.
        setTimeout(() => document.querySelector('[data-testid=profile-engines]')?.scrollIntoView({ block: 'center' }), 50);
        break;
      case 'export': {
        const pt = pointOf(a.params, ctx.points) ?? answerBest(ctx.points, bestPoint)?.config ?? null;
        if (!pt) return;
        const file = typeof a.params.file === 'string' ? a.params.file : ctx.file;
        // The decoder and flip the action names (the measured point's), else the plan's.
        const plan = {
          ...ctx.plan,
          ...(typeof a.params.decoder === 'string' ? { decoder: a.params.decoder } : {}),
          ...(typeof a.params.flip === 'boolean' ? { flip: a.params.flip } : {}),
        };
        useExportStore.getState().setForm(exportPatch(file, pt, plan));
        setScreen('export');
        break;
      }
      case 'rebuild': {
        const src = useSourcesStore.getState();
        const file = typeof a.params.file === 'string' ? a.params.file : ctx.file;
        const source = typeof a.params.source === 'string' ? a.params.source : (ctx.source ?? (await sourceOf(file)));
        if (source && src.detected?.source.path !== source) {
          src.setPath(source);
          await src.detect(source);
        }
        const { field, pageSizeMiB } = rebuildPatch(a.params);
        const s = useSourcesStore.getState();
        s.form?.fields.forEach((f, i) => {
          if (f.type === FIELD_TYPE.rgbImage) s.updateField(i, field);
        });
        if (pageSizeMiB) s.updateForm({ pageSizeMiB });
        setScreen('sources');
        break;
      }
    }
    window.scrollTo({ top: 0 });
  };
}

/**
 * The run's answer (core/profile's one verdict): what limits it, the best point (the one
 * number every surface shows), the noise, the evidence, the engines side by side, and the
 * actions as buttons that prefill the form that carries them out.
 */
export function AnswerCard({
  answer,
  ctx,
  unit = 'images/s',
  testId = 'answer',
}: {
  answer: ProfileAnswer;
  ctx: AnswerContext;
  unit?: string;
  testId?: string;
}) {
  const act = useAnswerAction(ctx, answer.best.point);
  const [busy, setBusy] = useState<number | null>(null);
  const engines = Object.entries(answer.engines) as Array<[EngineName, NonNullable<ProfileAnswer['engines'][EngineName]>]>;
  return (
    <div className="answer" data-testid={testId} data-bottleneck={answer.bottleneck} data-engine={answer.engine}>
      <p className="answer-head">
        <span className={`badge badge-${TONE[answer.bottleneck] ?? 'bad'}`} data-testid="answer-bottleneck">
          {answer.bottleneck}
        </span>{' '}
        <span className="muted">for {ENGINE_LABEL[answer.engine]}</span>
        {answer.contended ? (
          <span className="badge badge-warn" title="Other processes held more than about 20% of the CPUs while measuring.">
            machine busy
          </span>
        ) : null}
      </p>
      <p
        className="answer-best"
        data-testid="answer-best"
        data-value={answer.best.images_per_sec ?? ''}
        data-point={answer.best.point ?? ''}
      >
        Best: <strong>{bestText(answer, ctx.points, unit)}</strong>
        {answer.noise !== null ? (
          <span className="muted" data-testid="answer-noise">
            {' '}
            · noise ±{Math.round(answer.noise * 100)}% (spread of its slices: differences smaller than this are not differences)
          </span>
        ) : null}
      </p>
      <p className="verdict-summary" data-testid="answer-summary">
        <InlineMarkdown text={answer.summary} />
      </p>
      <div className="two-col">
        <div>
          <h4>Evidence</h4>
          <ul data-testid="answer-evidence">
            {answer.evidence.map((x, i) => (
              <li key={i}>
                <InlineMarkdown text={x} />
              </li>
            ))}
          </ul>
        </div>
        <div>
          {engines.length > 1 ? (
            <>
              <h4>Engines</h4>
              <table className="table compact" data-testid="answer-engines">
                <thead>
                  <tr>
                    <th scope="col">Engine</th>
                    <th scope="col">best {unit}</th>
                    <th scope="col">vs {answer.engine === 'exec' ? 'yours' : ENGINE_LABEL[answer.engine]}</th>
                  </tr>
                </thead>
                <tbody>
                  {engines.map(([e, v]) => (
                    <tr key={e} data-engine={e} className={e === answer.engine ? 'is-best' : ''}>
                      <th scope="row">
                        {ENGINE_LABEL[e]}
                        {e === answer.engine ? <span className="muted"> · trained with</span> : null}
                      </th>
                      <td className="num">{v.best_images_per_sec === null ? 'not measured' : formatCompact(v.best_images_per_sec)}</td>
                      <td className="num">{v.vs_trained_with === null ? '—' : `${v.vs_trained_with.toFixed(2)}×`}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </>
          ) : null}
          <h4>What to do</h4>
          {answer.actions.length ? (
            <div className="answer-actions" data-testid="answer-actions">
              {answer.actions.map((a, i) => (
                <button
                  key={`${a.id}-${i}`}
                  type="button"
                  className={`btn ${i === 0 ? 'btn-primary' : ''}`}
                  data-testid={`action-${a.id}`}
                  data-rank={i}
                  disabled={busy !== null}
                  title="Prefills the form that does it; nothing starts until you press its button there."
                  onClick={() => {
                    setBusy(i);
                    void act(a).finally(() => setBusy(null));
                  }}
                >
                  {a.label}
                </button>
              ))}
            </div>
          ) : (
            <p className="muted">Nothing to change: this setup is balanced.</p>
          )}
        </div>
      </div>
    </div>
  );
}
