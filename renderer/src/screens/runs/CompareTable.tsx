import { formatCompact } from '../../lib/format.js';
import { pointLabel } from '../../lib/profile-form.js';
import type { RunComparison } from '../../lib/types.js';

/** B faster than A (outside the noise) is better (green), slower worse (red); within the noise, mixed or not compared stays neutral. */
const TONE: Record<string, string> = { faster: 'good', slower: 'bad', same: '', none: '' };

/** Run B against run A (the older, the baseline): the best points, then every grid point both measured. */
export function CompareTable({ a, b, data }: { a: number; b: number; data: RunComparison }) {
  return (
    <section className="card" data-testid="compare-table">
      <header className="card-head">
        <h3>
          Run {b} (B) against run {a} (A)
        </h3>
        <span className="card-sub" data-testid="compare-context">
          {data.sameMachine ? 'same machine' : 'different machines'} ·{' '}
          <span data-testid="compare-dataset" data-same={String(data.sameDataset)}>
            {data.datasetNote}
          </span>
        </span>
      </header>
      {/* The headline counts the matching points only; a colour only where every point outside the noise agrees. */}
      {data.headline ? (
        <p
          className={`compare-best ${TONE[data.headline.direction ?? 'none']}`}
          data-testid="compare-headline"
          data-direction={data.headline.direction ?? 'none'}
        >
          {data.headline.text}.
        </p>
      ) : null}
      <p
        className={`muted ${TONE[data.best.direction ?? 'none']}`}
        data-testid="compare-best"
        data-direction={data.best.direction ?? 'none'}
      >
        Best point: {data.best.text}.
      </p>
      {data.rows.length ? (
        <table className="table compact">
          <thead>
            <tr>
              <th scope="col">Point</th>
              <th scope="col">A: run {a}</th>
              <th scope="col">B: run {b}</th>
              <th scope="col">B against A</th>
            </tr>
          </thead>
          <tbody>
            {data.rows.map((row, i) => (
              <tr key={i}>
                <th scope="row">{pointLabel(row.config)}</th>
                <td className="num">{formatCompact(row.a.imagesPerSec)}</td>
                <td className="num">{formatCompact(row.b.imagesPerSec)}</td>
                <td
                  className={`num ${TONE[row.direction ?? 'none']}`}
                  data-testid="compare-change"
                  data-direction={row.direction ?? 'none'}
                >
                  {row.text}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="muted">The two runs measured no common grid point.</p>
      )}
    </section>
  );
}
