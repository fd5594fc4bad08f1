import { FIELD_TYPE } from '../../../../core/api/constants.js';
import { FieldMessage } from '../../components/Form.js';
import { useAdviceStore } from '../../stores/advice.js';
import { fieldTypesFor, type BuildForm, type FieldForm, type FormErrors } from '../../lib/build-form.js';
import { formatNumber } from '../../lib/format.js';
import { FieldRow, type SchemaLayout } from './FieldRow.js';

const SOURCE_LABEL: Record<string, string> = {
  image_folder: 'Image folder',
  image_list: 'Image list',
  table: 'Table',
  webdataset: 'WebDataset shards',
  video_folder: 'Video folder',
  video_list: 'Video list',
};

/** The detected schema, editable: one row per field (type, and an image's or clip's storage options). */
export function SchemaCard({
  form,
  errors,
  warnings,
  updateField,
  removeField,
}: {
  form: BuildForm;
  errors: FormErrors;
  warnings: FormErrors;
  updateField(index: number, patch: Partial<FieldForm>): void;
  removeField(index: number): void;
}) {
  const types = fieldTypesFor(form.source.type);
  // A video folder's clips are known once decoded: an estimate that read every one counted them.
  const counted = useAdviceStore((a) => {
    if (!a.advice || a.advice.items === null || !a.madeFor) return null;
    try {
      return (JSON.parse(a.madeFor) as { source?: { path?: string } }).source?.path === form.source.path ? a.advice.items : null;
    } catch {
      return null;
    }
  });
  // Only the options some field has: a CSV's schema shows no JPEG columns, a video's no smart threshold.
  const layout: SchemaLayout = form.fields.some((f) => f.type === FIELD_TYPE.rgbImage)
    ? 'image'
    : form.fields.some((f) => f.type === FIELD_TYPE.videoClip)
      ? 'clip'
      : 'plain';
  return (
    <section className="card" data-testid="schema-card">
      <header className="card-head">
        <h3>Schema</h3>
        <span className="card-sub">
          <span className="badge">{SOURCE_LABEL[form.source.type] ?? form.source.type}</span>{' '}
          <span data-testid="source-length">
            {form.length !== null
              ? `${formatNumber(form.length)} samples`
              : counted !== null
                ? `${formatNumber(counted)} samples (counted by the estimate)`
                : 'length unknown (the estimate counts a source it reads whole)'}
          </span>
        </span>
      </header>
      <FieldMessage id="source-warning" warning={warnings.source} />
      <div className="table-scroll">
        <table className={`table schema-table schema-${layout}`} data-testid="schema-table" data-layout={layout}>
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">Type</th>
              {layout === 'plain' ? (
                <th scope="col">Options</th>
              ) : (
                <>
                  <th scope="col">Write mode</th>
                  <th scope="col">Max resolution</th>
                  <th scope="col">JPEG quality</th>
                </>
              )}
              {layout === 'image' ? (
                <>
                  <th scope="col">Compress p.</th>
                  <th scope="col">Smart threshold</th>
                  <th scope="col">Pass-through</th>
                </>
              ) : null}
              <th scope="col">
                <span className="sr-only">Remove</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {form.fields.map((f, i) => (
              <FieldRow
                key={i}
                index={i}
                field={f}
                layout={layout}
                types={types}
                errors={errors}
                warnings={warnings}
                onChange={(patch) => updateField(i, patch)}
                onRemove={form.fields.length > 1 ? () => removeField(i) : undefined}
              />
            ))}
          </tbody>
        </table>
      </div>
      <FieldMessage id="fields-error" error={errors.fields} />
    </section>
  );
}
