/** One field of the Sources screen's schema table: name, type and the type's options. */
import { FIELD_TYPE, CLIP_WRITE_MODES as CONTRACT_CLIP_WRITE_MODES } from '../../../../core/api/constants.js';
import { Check, FieldMessage } from '../../components/Form.js';
import { DTYPES, needsCategories, WRITE_MODES, type FieldForm, type FieldType, type WriteMode } from '../../lib/build-form.js';
import { formatNumber } from '../../lib/format.js';

const CLIP_WRITE_MODES: readonly WriteMode[] = CONTRACT_CLIP_WRITE_MODES;
export const TYPE_LABEL: Record<FieldType, string> = {
  rgb_image: 'RGB image',
  int: 'int',
  float: 'float',
  bytes: 'bytes',
  // A string column becomes a JSON field (FFCV's JSONField holds the text); the label says both.
  json: 'text (JSON)',
  ndarray: 'ndarray',
  torch_tensor: 'torch tensor',
  video_clip: 'video clip',
};

/** Which option columns the schema table has: an image's six, a clip's three, or one "Options" column. */
export type SchemaLayout = 'image' | 'clip' | 'plain';
const OPTION_COLUMNS: Record<SchemaLayout, number> = { image: 6, clip: 3, plain: 1 };

export function FieldRow({
  index,
  field: f,
  layout,
  types,
  errors,
  warnings,
  onChange,
  onRemove,
}: {
  index: number;
  field: FieldForm;
  layout: SchemaLayout;
  types: FieldType[];
  errors: Record<string, string>;
  warnings: Record<string, string>;
  onChange(p: Partial<FieldForm>): void;
  onRemove: (() => void) | undefined;
}) {
  const k = (key: string): string => `fields.${index}.${key}`;
  const cell = (
    key: keyof FieldForm,
    label: string,
    props: { inputMode?: 'numeric' | 'decimal'; placeholder?: string; disabled?: boolean; title?: string } = {},
  ) => (
    <td>
      <input
        aria-label={`${f.name || `field ${index + 1}`} ${label}`}
        className="input-small"
        value={String(f[key] ?? '')}
        onChange={(e) => onChange({ [key]: e.target.value } as Partial<FieldForm>)}
        aria-invalid={errors[k(key)] ? true : undefined}
        data-testid={`field-${index}-${key}`}
        {...props}
      />
      <FieldMessage id={`f${index}-${key}`} error={errors[k(key)]} warning={warnings[k(key)]} />
    </td>
  );
  const modeCell = (modes: readonly WriteMode[], label: (m: WriteMode) => string) => (
    <td>
      <select
        aria-label={`${f.name} write mode`}
        value={f.writeMode}
        onChange={(e) => onChange({ writeMode: e.target.value as WriteMode })}
        data-testid={`field-${index}-writeMode`}
      >
        {modes.map((m) => (
          <option key={m} value={m}>
            {label(m)}
          </option>
        ))}
      </select>
    </td>
  );
  const isImage = f.type === FIELD_TYPE.rgbImage;
  const rawOnly = f.writeMode === 'raw' ? { disabled: true, title: 'raw mode stores pixels: no JPEG is written' } : {};
  const isClip = f.type === FIELD_TYPE.videoClip;
  const isArray = f.type === FIELD_TYPE.ndarray || f.type === FIELD_TYPE.torchTensor;
  const labels = needsCategories(f) ? f.labelMap : null;
  const span = OPTION_COLUMNS[layout];
  return (
    <tr data-testid={`field-row-${f.name}`}>
      <td>
        <input
          aria-label={`Field ${index + 1} name`}
          className="input-small"
          value={f.name}
          onChange={(e) => onChange({ name: e.target.value })}
          aria-invalid={errors[k('name')] ? true : undefined}
        />
        <FieldMessage id={`f${index}-name`} error={errors[k('name')]} />
        {f.columns ? <div className="field-hint">from {f.columns.join(', ')}</div> : null}
      </td>
      <td>
        <select
          aria-label={`${f.name} type`}
          value={f.type}
          onChange={(e) => onChange({ type: e.target.value as FieldType })}
          data-testid={`field-${index}-type`}
        >
          {types.map((t) => (
            <option key={t} value={t}>
              {TYPE_LABEL[t]}
            </option>
          ))}
        </select>
      </td>
      {isImage ? (
        <>
          {modeCell(WRITE_MODES, (m) => m)}
          {cell('maxResolution', 'max resolution', { inputMode: 'numeric', placeholder: 'none' })}
          {/* Raw mode writes no JPEG: its quality and the chance of one mean nothing there. */}
          {cell('jpegQuality', 'JPEG quality', { inputMode: 'numeric', ...rawOnly })}
          {cell('compressProbability', 'compress probability', { inputMode: 'decimal', ...rawOnly })}
          {cell('smartThreshold', 'smart threshold', { inputMode: 'numeric', placeholder: 'none' })}
          <td>
            <Check
              label={<span className="sr-only">{f.name}: keep source JPEGs (pass-through)</span>}
              checked={f.passThrough}
              onChange={(passThrough) => onChange({ passThrough })}
              testId={`field-${index}-passThrough`}
            />
            <FieldMessage id={`f${index}-pt`} warning={warnings[k('passThrough')]} />
          </td>
        </>
      ) : isClip ? (
        <>
          {modeCell(CLIP_WRITE_MODES, (m) => (m === 'jpg' ? 'jpg (per frame)' : 'raw'))}
          {cell('maxResolution', 'max resolution', { inputMode: 'numeric', placeholder: 'none' })}
          {cell('jpegQuality', 'JPEG quality', { inputMode: 'numeric', ...rawOnly })}
          {layout === 'image' ? (
            <td colSpan={3} className="muted">
              Frames per clip: the clip length, under Clips.
            </td>
          ) : null}
        </>
      ) : labels !== null || needsCategories(f) ? (
        <td colSpan={span} data-testid={`field-${index}-labels`} data-state={labels?.state ?? 'none'}>
          <LabelMapping labels={labels} />
          <FieldMessage id={`f${index}-labels`} error={errors[k('labels')]} />
        </td>
      ) : isArray ? (
        <td colSpan={span}>
          <div className="inline-fields">
            <select aria-label={`${f.name} dtype`} value={f.dtype} onChange={(e) => onChange({ dtype: e.target.value })}>
              {DTYPES.map((d) => (
                <option key={d} value={d}>
                  {d}
                </option>
              ))}
            </select>
            <input
              aria-label={`${f.name} shape`}
              className="input-small"
              value={f.shape}
              onChange={(e) => onChange({ shape: e.target.value })}
              aria-invalid={errors[k('shape')] ? true : undefined}
              placeholder="shape, e.g. 28, 28"
            />
          </div>
          <FieldMessage id={`f${index}-shape`} error={errors[k('shape')] ?? errors[k('dtype')]} />
        </td>
      ) : (
        <td colSpan={span} className="muted">
          No options for {TYPE_LABEL[f.type]} fields.
        </td>
      )}
      <td>
        {isClip ? <FieldMessage id={`f${index}-type`} error={errors[k('type')]} /> : null}
        {onRemove ? (
          <button type="button" className="btn btn-small btn-ghost" onClick={onRemove} aria-label={`Remove field ${f.name}`}>
            ✕
          </button>
        ) : null}
      </td>
    </tr>
  );
}

/** category → int: each value and the integer it is stored as (the mapping saved with the build). */
function LabelMapping({ labels }: { labels: FieldForm['labelMap'] }) {
  if (!labels || labels.state === 'loading') return <span className="muted">Reading the column's values…</span>;
  if (labels.state === 'error') return null;
  const shown = labels.categories.slice(0, 24);
  return (
    <div className="label-map">
      <span className="muted">{formatNumber(labels.categories.length)} categories → int, in sorted order (saved in the build config):</span>
      <ul className="label-map-list">
        {shown.map((c, i) => (
          <li key={c}>
            <code>{i}</code> {c}
          </li>
        ))}
        {labels.categories.length > shown.length ? (
          <li className="muted">…and {formatNumber(labels.categories.length - shown.length)} more</li>
        ) : null}
      </ul>
    </div>
  );
}
