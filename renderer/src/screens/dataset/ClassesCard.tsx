import type { InspectResult } from '../../../../core/api/contract.js';
import { ClassHistogram } from '../../components/ClassHistogram.js';
import { SelectField } from '../../components/Form.js';
import { formatNumber, shortenPath } from '../../lib/format.js';
import { useDatasetsStore } from '../../stores/datasets.js';

/** Class names (sidecar manifest), the histogram and the label filter. */
export function ClassesCard({ info }: { info: InspectResult }) {
  const labelFilter = useDatasetsStore((s) => s.labelFilter);
  const setLabelFilter = useDatasetsStore((s) => s.setLabelFilter);
  const m = info.manifest;
  const labels = info.labels ?? null;
  return (
    <section className="card" aria-label="Classes" data-testid="classes-card">
      <header className="card-head">
        <h3>Classes</h3>
        <span className="card-sub" data-testid="manifest-status" data-status={m?.status ?? 'missing'}>
          {m?.status === 'ok' && m.classNames ? (
            <>
              names from <code title={m.path}>{shortenPath(m.path, 60)}</code>
            </>
          ) : m?.status === 'ok' ? (
            'the manifest has no class names; labels are shown as numbers'
          ) : (
            'no manifest beside the file; labels are shown as numbers'
          )}
        </span>
      </header>
      {m && m.note ? (
        <p className="field-msg field-warning" role="status" data-testid="manifest-note">
          {m.note}
        </p>
      ) : null}
      {!labels ? (
        <p className="muted">No class field: the file has no int field named label.</p>
      ) : labels.truncated ? (
        <p className="muted">
          Field <code>{labels.field}</code> has more than 1000 distinct values: an id rather than a class, so no histogram.
        </p>
      ) : (
        <>
          <div className="row-wrap">
            <div className="narrow">
              <SelectField
                label="Show class"
                testId="label-filter"
                value={labelFilter === null ? '' : String(labelFilter)}
                onChange={(v) => void setLabelFilter(v === '' ? null : Number(v))}
                options={[
                  { value: '', label: `All ${formatNumber(info.numSamples)} samples` },
                  ...labels.counts.map((c) => ({
                    value: String(c.label),
                    label: `${c.name !== null ? `${c.name} (${c.label})` : `label ${c.label}`} · ${formatNumber(c.count)}`,
                  })),
                ]}
              />
            </div>
            <div className="align-end">
              <p className="muted">
                {formatNumber(labels.distinct)} classes in field <code>{labels.field}</code>; pick a bar to show only its samples.
              </p>
            </div>
          </div>
          <ClassHistogram labels={labels} selected={labelFilter} onSelect={(l) => void setLabelFilter(l)} />
        </>
      )}
    </section>
  );
}
