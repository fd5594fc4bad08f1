import { useMemo } from 'react';
import { BuildAdvicePanel } from '../../components/BuildAdvicePanel.js';
import { validateBuildForm } from '../../lib/build-form.js';
import { useEnvStore } from '../../stores/env.js';
import { useSourcesStore } from '../../stores/sources.js';
import { BuildActions } from './BuildActions.js';
import { ClipCard } from './ClipCard.js';
import { OutputCard } from './OutputCard.js';
import { SchemaCard } from './SchemaCard.js';
import { usePick } from '../../stores/use-pick.js';

/** The build form of a detected source, checked as it is edited: schema, clipping, output, advice, Build. */
export function BuildFormView() {
  const s = usePick(useSourcesStore, 'form', 'updateForm', 'updateField', 'updateClip', 'removeField');
  const cores = useEnvStore((e) => e.info?.cores ?? null);
  const checked = useMemo(() => (s.form ? validateBuildForm(s.form) : null), [s.form]);
  if (!s.form || !checked) return null;
  const { errors, warnings } = checked;
  return (
    <>
      <SchemaCard form={s.form} errors={errors} warnings={warnings} updateField={s.updateField} removeField={s.removeField} />
      {s.form.clip ? <ClipCard clip={s.form.clip} errors={errors} onChange={s.updateClip} /> : null}
      <OutputCard form={s.form} errors={errors} cores={cores} onChange={s.updateForm} />
      <BuildAdvicePanel
        config={checked.config}
        onPageSize={(pageSizeMiB) => s.updateForm({ pageSizeMiB })}
        onSkip={() => s.updateForm({ onError: 'skip' })}
      />
      <BuildActions config={checked.config} errorCount={Object.keys(errors).length} />
    </>
  );
}
