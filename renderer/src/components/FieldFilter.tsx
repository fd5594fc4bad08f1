import { useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { InspectResult } from '../../../core/api/contract.js';
import { formatNumber } from '../lib/format.js';
import { useDatasetsStore } from '../stores/datasets.js';

/**
 * A filter on any int, float or string (json) field: a range (min and/or max) or a list of
 * values (comma-separated). Answered by the server (`datasets.preview` with `where`), so
 * it works on any number of samples; combines with the class filter.
 */
export function FieldFilter({ info }: { info: InspectResult }) {
  const d = useDatasetsStore(
    useShallow((s) => ({ where: s.where, matches: s.preview?.where?.matches, setWhere: s.setWhere, labels: s.inspect?.labels ?? null })),
  );
  const usable = info.fields.filter((f) => f.type === 'int' || f.type === 'float' || f.type === 'json');
  const [field, setField] = useState(usable[0]?.name ?? '');
  const [min, setMin] = useState('');
  const [max, setMax] = useState('');
  const [values, setValues] = useState('');
  const [error, setError] = useState<string | null>(null);
  if (!usable.length) return null;
  const type = usable.find((f) => f.name === field)?.type ?? 'json';
  const apply = () => {
    const num = (s: string, what: string): number | undefined | null => {
      if (s.trim() === '') return undefined;
      const n = Number(s);
      if (!Number.isFinite(n)) {
        setError(`${what} "${s}" is not a number.`);
        return null;
      }
      return n;
    };
    // A text field has no range: what the hidden inputs held for another field is not applied.
    const lo = type === 'json' ? undefined : num(min, 'Minimum');
    const hi = type === 'json' ? undefined : num(max, 'Maximum');
    if (lo === null || hi === null) return;
    // The class field takes class names too (the file's manifest or folder names): "dog" is label 1.
    const names = d.labels && d.labels.field === field ? d.labels.counts.filter((c) => c.name !== null) : [];
    const list: Array<string | number> = [];
    for (const v of values
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean)) {
      if (type !== 'json' && Number.isFinite(Number(v))) list.push(Number(v));
      else if (type !== 'json') {
        const hit = names.find((c) => c.name!.toLowerCase() === v.toLowerCase());
        if (!hit) {
          setError(
            names.length
              ? `No class named "${v}" (classes: ${names
                  .slice(0, 12)
                  .map((c) => c.name)
                  .join(', ')}${names.length > 12 ? ', …' : ''}).`
              : `"${v}" is not a number (${field} holds numbers).`,
          );
          return;
        }
        list.push(hit.label);
      } else list.push(v);
    }
    if (lo === undefined && hi === undefined && !list.length) {
      setError('Give a minimum, a maximum or values.');
      return;
    }
    if (lo !== undefined && hi !== undefined && lo > hi) {
      setError(`The minimum ${lo} is above the maximum ${hi}.`);
      return;
    }
    setError(null);
    void d.setWhere({
      field,
      ...(lo !== undefined ? { min: lo } : {}),
      ...(hi !== undefined ? { max: hi } : {}),
      ...(list.length ? { values: list } : {}),
    });
  };
  const w = d.where;
  // The summary names classes as they were typed: "label in dog (1)".
  const nameOf = (v: string | number, f: string): string => {
    const c = d.labels && d.labels.field === f && typeof v === 'number' ? d.labels.counts.find((x) => x.label === v) : undefined;
    return c?.name ? `${c.name} (${v})` : String(v);
  };
  return (
    <form
      className="field-filter row-wrap"
      data-testid="field-filter"
      onSubmit={(e) => {
        e.preventDefault();
        apply();
      }}
    >
      <label>
        Filter field{' '}
        <select
          value={field}
          onChange={(e) => {
            // Another field starts empty: its bounds are not the last field's.
            setField(e.target.value);
            setMin('');
            setMax('');
            setValues('');
            setError(null);
          }}
          data-testid="where-field"
        >
          {usable.map((f) => (
            <option key={f.name} value={f.name}>
              {f.name} ({f.type === 'json' ? 'text/JSON' : f.type})
            </option>
          ))}
        </select>
      </label>
      {type !== 'json' ? (
        <>
          <label>
            from{' '}
            <input
              className="input-small"
              inputMode="decimal"
              value={min}
              onChange={(e) => setMin(e.target.value)}
              data-testid="where-min"
              aria-label="Minimum"
            />
          </label>
          <label>
            to{' '}
            <input
              className="input-small"
              inputMode="decimal"
              value={max}
              onChange={(e) => setMax(e.target.value)}
              data-testid="where-max"
              aria-label="Maximum"
            />
          </label>
        </>
      ) : null}
      <label>
        {type !== 'json' ? 'or values' : 'values'}{' '}
        <input
          value={values}
          onChange={(e) => setValues(e.target.value)}
          data-testid="where-values"
          aria-label="Values, comma-separated"
          placeholder={d.labels && d.labels.field === field && d.labels.counts.some((c) => c.name) ? 'numbers or class names' : 'a, b, c'}
        />
      </label>
      <button type="submit" className="btn btn-small" data-testid="where-apply">
        Apply
      </button>
      {w ? (
        <button
          type="button"
          className="btn btn-small"
          data-testid="where-clear"
          onClick={() => {
            setError(null);
            void d.setWhere(null);
          }}
        >
          Clear
        </button>
      ) : null}
      {error ? (
        <p className="field-msg field-error" role="alert" data-testid="where-error">
          {error}
        </p>
      ) : null}
      {w && d.matches !== undefined ? (
        <p className="muted" role="status" data-testid="where-status">
          {formatNumber(d.matches)} samples with {w.field}
          {w.min !== undefined ? ` ≥ ${w.min}` : ''}
          {w.max !== undefined ? ` ≤ ${w.max}` : ''}
          {w.values ? ` in ${w.values.map((v) => nameOf(v, w.field)).join(', ')}` : ''}
        </p>
      ) : null}
    </form>
  );
}
