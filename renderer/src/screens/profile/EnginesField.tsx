import { Check, GroupError } from '../../components/Form.js';
import type { ProfileForm } from '../../lib/profile-form.js';
import type { EngineName } from '../../lib/types.js';
import { useProfilesStore } from '../../stores/profiles.js';
import { toggle } from './toggle.js';

const ENGINES: Array<{ value: EngineName; label: string }> = [
  { value: 'beton', label: 'beton (ours)' },
  { value: 'ffcv', label: 'FFCV (Python)' },
  { value: 'torch', label: 'PyTorch DataLoader' },
];

/** Which engines the sweep runs: one this host cannot run is off, with how to get it. */
export function EnginesField({
  engines,
  error,
  setForm,
}: {
  engines: ProfileForm['engines'];
  error: string | undefined;
  setForm(patch: Partial<ProfileForm>): void;
}) {
  const engineStatus = useProfilesStore((s) => s.engineStatus);
  return (
    <fieldset className="field span-2" data-testid="profile-engines">
      <legend>Engines</legend>
      <div className="checks">
        {ENGINES.map((en) => {
          const st = engineStatus?.find((x) => x.engine === en.value);
          const missing = st ? !st.available : en.value !== 'beton';
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
            {x.engine} is not available here: {x.reason}
          </div>
        ))}
      <GroupError error={error} />
    </fieldset>
  );
}
