/** Where the build writes and how: output file, page size, encoder threads, bad samples. */
import { SelectField, TextField } from '../../components/Form.js';
import type { BuildForm } from '../../lib/build-form.js';

export function OutputCard({
  form,
  errors,
  cores,
  onChange,
}: {
  form: BuildForm;
  errors: Record<string, string>;
  cores: number | null;
  onChange(patch: Partial<Omit<BuildForm, 'fields'>>): void;
}) {
  return (
    <section className="card">
      <header className="card-head">
        <h3>Output</h3>
      </header>
      <div className="grid-form">
        <TextField
          className="span-2"
          label="Output file"
          value={form.output}
          onChange={(output) => onChange({ output })}
          error={errors.output}
          testId="output-input"
          spellCheck={false}
        />
        <TextField
          label="Page size (MiB)"
          value={form.pageSizeMiB}
          onChange={(pageSizeMiB) => onChange({ pageSizeMiB })}
          error={errors.pageSize}
          testId="pagesize-input"
          inputMode="decimal"
          hint={form.pageSizeWhy ?? "A power of two; FFCV's default is 8."}
        />
        <TextField
          label="Workers"
          value={form.workers}
          onChange={(workers) => onChange({ workers })}
          error={errors.workers}
          testId="workers-input"
          inputMode="numeric"
          placeholder={cores ? `auto (${cores})` : 'auto'}
          hint="Encoder threads; the output is the same whatever the count."
        />
        <TextField
          label="Seed"
          value={form.seed}
          onChange={(seed) => onChange({ seed })}
          error={errors.seed}
          testId="seed-input"
          inputMode="numeric"
          placeholder="0"
          hint="Per-sample draws (proportion mode): the same seed writes the same file."
        />
        <SelectField
          label="Bad samples"
          value={form.onError}
          onChange={(onError) => onChange({ onError })}
          options={[
            { value: 'fail', label: 'Stop the build' },
            { value: 'skip', label: 'Skip and list them' },
          ]}
          testId="onerror-select"
        />
      </div>
    </section>
  );
}
