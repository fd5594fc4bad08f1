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
  const d = useDatasetsStore(useShallow((s) => ({ where: s.where, matches: s.preview?.where?.matches, setWhere: s.setWhere })));
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
    const lo = num(min, 'Minimum');
    const hi = num(max, 'Maximum');
    if (lo === null || hi === null) return;
    const list = values
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean)
      .map((v) => (type !== 'json' && Number.isFinite(Number(v)) ? Number(v) : v));
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
        <select value={field} onChange={(e) => setField(e.target.value)} data-testid="where-field">
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
          placeholder="a, b, c"
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
          {w.values ? ` in ${w.values.join(', ')}` : ''}
        </p>
      ) : null}
    </form>
  );
}
