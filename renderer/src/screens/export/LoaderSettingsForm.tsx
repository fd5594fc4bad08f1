/** The Export screen's loader settings: file, batch, workers, order, decoder, caching, and whether to include the build. */
import { ORDER_NAMES } from '../../../../core/api/constants.js';
import { DatasetFileField, DecoderFields } from '../../components/LoaderFields.js';
import { Check, SelectField, TextField } from '../../components/Form.js';
import type { ExportForm } from '../../lib/export-form.js';
import type { OrderName } from '../../lib/types.js';

export function LoaderSettingsForm({
  form: f,
  errors: e,
  hasBuild,
  onChange,
}: {
  form: ExportForm;
  errors: Record<string, string>;
  /** This session ran the build that wrote the file (its code can be included). */
  hasBuild: boolean;
  onChange(patch: Partial<ExportForm>): void;
}) {
  return (
    <div className="grid-form">
      <DatasetFileField value={f.file} onChange={(file) => onChange({ file })} error={e.file} testId="export-file" />
      <TextField
        label="Batch size"
        value={f.batchSize}
        onChange={(batchSize) => onChange({ batchSize })}
        error={e.batchSize}
        testId="export-batch"
        inputMode="numeric"
      />
      <TextField
        label="Workers"
        value={f.numWorkers}
        onChange={(numWorkers) => onChange({ numWorkers })}
        error={e.numWorkers}
        testId="export-workers"
        placeholder="auto"
        inputMode="numeric"
      />
      <SelectField<OrderName>
        label="Order"
        value={f.order}
        onChange={(order) => onChange({ order })}
        options={ORDER_NAMES.map((o) => ({ value: o, label: o.replace('_', '-') }))}
      />
      <TextField label="Seed" value={f.seed} onChange={(seed) => onChange({ seed })} error={e.seed} inputMode="numeric" />
      <TextField
        label="Batches ahead"
        value={f.batchesAhead ?? ''}
        onChange={(batchesAhead) => onChange({ batchesAhead })}
        error={e.batchesAhead}
        testId="export-batches-ahead"
        inputMode="numeric"
        placeholder="3 (the loader's default)"
      />
      <DecoderFields
        decoder={f.decoder}
        size={f.size}
        sizeError={e.size}
        onDecoder={(decoder) => onChange({ decoder })}
        onSize={(size) => onChange({ size })}
      />
      <div className="checks span-2">
        <Check label="Random horizontal flip" checked={f.flip} onChange={(flip) => onChange({ flip })} />
        <Check label="Normalize (ImageNet mean/std)" checked={f.normalize} onChange={(normalize) => onChange({ normalize })} />
        <Check label="OS page cache" checked={f.osCache} onChange={(osCache) => onChange({ osCache })} />
        <Check label="Drop the last partial batch" checked={f.dropLast} onChange={(dropLast) => onChange({ dropLast })} />
        <Check
          label={
            hasBuild
              ? 'Include the build that wrote this file (DatasetWriter code)'
              : 'Include its build (none this session wrote this file)'
          }
          checked={f.includeBuild && hasBuild}
          disabled={!hasBuild}
          onChange={(includeBuild) => onChange({ includeBuild })}
          testId="export-include-build"
        />
      </div>
    </div>
  );
}
