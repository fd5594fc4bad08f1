import { Check, GroupError, SelectField, TextField } from '../../components/Form.js';
import { InlineMarkdown } from '../../components/InlineMarkdown.js';
import type { ProfileForm } from '../../lib/profile-form.js';
import type { EngineName } from '../../lib/types.js';
import { useProfilesStore } from '../../stores/profiles.js';
import { toggle } from './toggle.js';

const ENGINES: Array<{ value: EngineName; label: string }> = [
  { value: 'beton', label: 'beton (ours)' },
  { value: 'ffcv', label: 'FFCV (Python)' },
  { value: 'torch', label: 'PyTorch DataLoader' },
];

const TRAIN_WITH: Array<{ value: EngineName | ''; label: string }> = [
  { value: '', label: 'Automatic: FFCV if measured, else torch, else ours' },
  ...ENGINES,
];

/**
 * The host's reason an engine is missing, worded for the app: the CLI's "or pass --python
 * PATH" is an option neither `beton serve`'s page nor this form has a flag for; here the
 * interpreter is the field below.
 */
export function missingText(engine: string, reason: string | null, python: string): string {
  // The host's alternatives after the install command (", or pass --python PATH", ", or restart the server with …") are the CLI's.
  const why = (reason ?? 'its Python modules are missing').replace(/,\s+or\s.*$/s, '').replace(/\.$/, '');
  if (python.trim())
    return `${engine} cannot run with the server's Python (${why}); it will run with ${python.trim()}, which the server checks when the sweep starts.`;
  return `${engine} cannot run with the server's Python: ${why}. Or name a Python that has it in "Python interpreter" below (the server checks it by running it).`;
}

/** Which engines the sweep runs, which one you train with, and the Python the FFCV and torch engines run in. */
export function EnginesField({
  form,
  error,
  pythonError,
  setForm,
}: {
  form: Pick<ProfileForm, 'engines' | 'trainWith' | 'python'>;
  error: string | undefined;
  pythonError?: string | undefined;
  setForm(patch: Partial<ProfileForm>): void;
}) {
  const engineStatus = useProfilesStore((s) => s.engineStatus);
  const { engines, trainWith, python } = form;
  // engineStatus is about the server's own Python; an interpreter named here is checked by the server at the start.
  const ownPython = !python.trim();
  return (
    <fieldset className="field span-2" data-testid="profile-engines">
      <legend>Engines</legend>
      <div className="checks">
        {ENGINES.map((en) => {
          const st = engineStatus?.find((x) => x.engine === en.value);
          const missing = ownPython && (st ? !st.available : en.value !== 'beton');
          return (
            <Check
              key={en.value}
              label={en.label}
              checked={engines.includes(en.value)}
              disabled={missing && !engines.includes(en.value)}
              onChange={(on) => setForm({ engines: toggle(engines, en.value, on) })}
              testId={`engine-${en.value}`}
            />
          );
        })}
      </div>
      {engineStatus
        ?.filter((x) => !x.available)
        .map((x) => (
          <div key={x.engine} className="field-msg" data-testid={`engine-missing-${x.engine}`}>
            <InlineMarkdown text={missingText(x.engine, x.reason, python)} />
          </div>
        ))}
      <GroupError error={error} />
      <div className="grid-form">
        <SelectField<EngineName | ''>
          label="I train with"
          value={trainWith}
          options={TRAIN_WITH}
          onChange={(v) => setForm({ trainWith: v, ...(v && !engines.includes(v) ? { engines: [...engines, v] } : {}) })}
          testId="profile-train-with"
        />
        <TextField
          label="Python interpreter (FFCV and torch engines)"
          value={python}
          onChange={(v) => setForm({ python: v })}
          error={pythonError}
          testId="profile-python"
          placeholder="the server's (python3)"
          spellCheck={false}
          hint="A path such as /opt/conda/envs/ffcv/bin/python; empty: the server's own."
        />
      </div>
    </fieldset>
  );
}
