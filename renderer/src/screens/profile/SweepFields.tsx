import { ORDER_NAMES } from '../../../../core/api/constants.js';
import { Check, GroupError, TextField } from '../../components/Form.js';
import { PathPicker } from '../../components/FileBrowser.js';
import type { ProfileForm } from '../../lib/profile-form.js';
import { DatasetFileField, DecoderFields } from '../../components/LoaderFields.js';
import type { OrderName } from '../../lib/types.js';
import { EnginesField } from './EnginesField.js';
import { toggle } from './toggle.js';

const ORDERS: Array<{ value: OrderName; label: string }> = ORDER_NAMES.map((o) => ({ value: o, label: o.replace('_', '-') }));

/** The "Loader sweep" inputs: the file, the grid (workers × batch sizes × orders × caches × engines) and the decoder. */
export function SweepFields({
  form: f,
  errors: e,
  cores,
  setForm,
}: {
  form: ProfileForm;
  errors: Record<string, string | undefined>;
  cores: number;
  setForm(patch: Partial<ProfileForm>): void;
}) {
  return (
    <div className="grid-form">
      <DatasetFileField value={f.file} onChange={(file) => setForm({ file })} error={e.file} testId="profile-file" />
      <TextField
        label="Workers"
        value={f.workers}
        onChange={(workers) => setForm({ workers })}
        error={e.workers}
        testId="profile-workers"
        placeholder={`auto: 1, 2, 4 … ${cores}`}
        hint="Comma-separated worker counts."
      />
      <TextField
        label="Batch sizes"
        value={f.batchSizes}
        onChange={(batchSizes) => setForm({ batchSizes })}
        error={e.batchSizes}
        testId="profile-batch"
      />
      <fieldset className="field">
        <legend>Orders</legend>
        <div className="checks">
          {ORDERS.map((o) => (
            <Check
              key={o.value}
              label={o.label}
              checked={f.orders.includes(o.value)}
              onChange={(on) => setForm({ orders: toggle(f.orders, o.value, on) })}
              testId={`order-${o.value}`}
            />
          ))}
        </div>
        <GroupError error={e.orders} />
      </fieldset>
      <fieldset className="field">
        <legend>Cache</legend>
        <div className="checks">
          <Check
            label="OS page cache"
            checked={f.caches.includes(true)}
            onChange={(on) => setForm({ caches: toggle(f.caches, true, on) })}
          />
          <Check
            label="Process cache"
            checked={f.caches.includes(false)}
            onChange={(on) => setForm({ caches: toggle(f.caches, false, on) })}
          />
        </div>
        <GroupError error={e.caches} />
      </fieldset>
      <DecoderFields
        decoder={f.decoder}
        size={f.decoderSize}
        sizeError={e.decoderSize}
        onDecoder={(decoder) => setForm({ decoder })}
        onSize={(decoderSize) => setForm({ decoderSize })}
        decoderTestId="profile-decoder"
      />
      <TextField
        label="Seconds per point"
        value={f.secondsPerPoint}
        onChange={(secondsPerPoint) => setForm({ secondsPerPoint })}
        error={e.secondsPerPoint}
        testId="profile-seconds"
        inputMode="decimal"
      />
      <TextField
        label="Warm-up batches"
        value={f.warmupBatches}
        onChange={(warmupBatches) => setForm({ warmupBatches })}
        error={e.warmupBatches}
        testId="profile-warmup"
        inputMode="numeric"
      />
      <TextField
        label="Batches ahead"
        value={f.batchesAhead}
        onChange={(batchesAhead) => setForm({ batchesAhead })}
        error={e.batchesAhead}
        testId="profile-batches-ahead"
        inputMode="numeric"
        placeholder="3 (the loader's default)"
        hint="Batches decoded ahead of the consumer; more smooths uneven supply."
      />
      <div className="align-end">
        <Check label="Random horizontal flip" checked={f.flip} onChange={(flip) => setForm({ flip })} />
      </div>
      <EnginesField form={f} error={e.engines} pythonError={e.python} setForm={setForm} />
      {f.engines.includes('torch') ? (
        <div className="span-2">
          <PathPicker
            label="Source folder (torch engine: the images the .beton was built from)"
            value={f.source}
            onChange={(source) => setForm({ source })}
            pick="folder"
            testId="profile-source"
          />
          <GroupError error={e.source} />
        </div>
      ) : null}
      {f.engines.includes('ffcv') ? (
        <div className="align-end">
          <Check
            label="FFCV per-stage costs (ablation, slower)"
            checked={f.stages}
            onChange={(stages) => setForm({ stages })}
            testId="profile-stages"
          />
        </div>
      ) : null}
    </div>
  );
}
