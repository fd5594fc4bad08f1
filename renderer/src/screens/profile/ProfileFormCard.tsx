import { useEffect, useMemo } from 'react';
import { FileErrorBanner } from '../../components/RemoteRefused.js';
import { validateProfileForm } from '../../lib/profile-form.js';
import { useEnvStore } from '../../stores/env.js';
import { profileStartErrorFor, useProfilesStore } from '../../stores/profiles.js';
import { usePick } from '../../stores/use-pick.js';
import { CommandFields } from './CommandFields.js';
import { SweepFields } from './SweepFields.js';

/**
 * What to profile and the Start button. It selects the form's state only: a running job's
 * telemetry (jobs:sample, about 4 a second) changes `job`, which this card reads only as
 * "running" and "cancelling", so the samples do not re-render the form.
 */
export function ProfileFormCard() {
  const p = usePick(
    useProfilesStore,
    'form',
    'fileSamples',
    'touched',
    'starting',
    'startError',
    'startErrorKey',
    'setForm',
    'start',
    'cancel',
    'loadEngines',
    'checkFile',
    'prefill',
  );
  const running = useProfilesStore((s) => s.job?.status === 'running');
  const cancelling = useProfilesStore((s) => s.job?.cancelling ?? false);
  const f = p.form;
  const cores = useEnvStore((e) => e.info?.cores ?? 1);
  // beton serve without --allow-exec refuses training commands (EXEC_DISABLED); say so up front.
  const execOff = useEnvStore((e) => e.info?.allowExec === false);
  const checked = useMemo(
    () =>
      validateProfileForm(f, {
        cores,
        numSamples: p.fileSamples && p.fileSamples.path === f.file.trim() ? p.fileSamples.numSamples : null,
      }),
    [f, cores, p.fileSamples],
  );
  // The command field is not red before anything is typed in it (Start stays off, the hint says what to type).
  const e: Record<string, string | undefined> = { ...checked.errors };
  if (!p.touched.command && !f.command.trim()) delete e.command;
  const startError = profileStartErrorFor(p, checked.params);

  // Which engines this host can run, once: the form says plainly how to get a missing one.
  const loadEngines = p.loadEngines;
  useEffect(() => {
    void loadEngines();
  }, [loadEngines]);

  // Learn the file's sample count (to check batch sizes) shortly after it is typed.
  const checkFile = p.checkFile;
  useEffect(() => {
    if (f.mode !== 'grid' || !f.file.trim()) return;
    const t = setTimeout(() => void checkFile(), 300);
    return () => clearTimeout(t);
  }, [f.file, f.mode, checkFile]);

  return (
    <section className="card">
      <div className="segmented" role="group" aria-label="What to profile">
        <button
          type="button"
          aria-pressed={f.mode === 'grid'}
          className={f.mode === 'grid' ? 'is-active' : ''}
          onClick={() => p.setForm({ mode: 'grid' })}
          data-testid="mode-grid"
        >
          Loader sweep
        </button>
        <button
          type="button"
          aria-pressed={f.mode === 'exec'}
          className={f.mode === 'exec' ? 'is-active' : ''}
          onClick={() => p.setForm({ mode: 'exec' })}
          data-testid="mode-exec"
        >
          Training command
        </button>
      </div>

      {p.prefill ? (
        <p className="notice" role="status" data-testid="profile-prefill">
          {p.prefill}. Check the settings, then press Start profiling.
        </p>
      ) : null}
      {f.mode === 'grid' ? (
        <SweepFields form={f} errors={e} cores={cores} setForm={p.setForm} />
      ) : (
        <CommandFields form={f} errors={e} execOff={execOff} setForm={p.setForm} />
      )}
      <div className="actions">
        {startError ? (
          <FileErrorBanner file={f.mode === 'grid' ? f.file : ''} error={startError} title="The profile did not start" />
        ) : null}
        {checked.grid.length ? (
          <span className="muted">
            {checked.grid.length} {checked.grid.length === 1 ? 'point' : 'points'} to measure
          </span>
        ) : null}
        {running ? (
          <button
            type="button"
            className="btn btn-danger"
            data-testid="profile-cancel"
            onClick={() => void p.cancel()}
            disabled={cancelling}
          >
            {cancelling ? 'Cancelling…' : 'Cancel'}
          </button>
        ) : null}
        <button
          type="button"
          className="btn btn-primary btn-large"
          data-testid="profile-start"
          disabled={!checked.params || running || p.starting || (f.mode === 'exec' && execOff)}
          onClick={() => checked.params && void p.start(checked.params, checked.grid)}
        >
          {p.starting ? 'Starting…' : running ? 'Running…' : 'Start profiling'}
        </button>
      </div>
    </section>
  );
}
