import type { InspectResult } from '../../../../core/api/contract.js';
import { formatBytes, formatNumber } from '../../lib/format.js';

/** The file's fields: type, FFCV class, stored arguments, bytes in the pages and how images are stored. */
export function FieldsCard({ info }: { info: InspectResult }) {
  const totalHeap = info.fields.reduce((a, f) => a + f.heapBytes, 0);
  return (
    <section className="card">
      <header className="card-head">
        <h3>Fields</h3>
      </header>
      <div className="table-scroll">
        <table className="table" data-testid="fields-table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Type</th>
              <th scope="col">FFCV class</th>
              <th scope="col">Arguments</th>
              <th scope="col">Bytes</th>
              <th scope="col">Image modes</th>
            </tr>
          </thead>
          <tbody>
            {info.fields.map((f) => (
              <tr key={f.name}>
                <th scope="row">{f.name}</th>
                <td>
                  {f.type} <span className="muted">({f.typeId})</span>
                </td>
                <td>
                  <code>{f.ffcvClass}</code>
                </td>
                <td className="args">
                  {Object.entries(f.arguments).map(([k, v]) => (
                    <span key={k} className="arg">
                      {k}=<code>{JSON.stringify(v)}</code>
                    </span>
                  ))}
                </td>
                <td className="num">
                  {formatBytes(f.heapBytes)}
                  <div
                    className="hbar"
                    style={{ width: `${totalHeap && f.heapBytes ? Math.max(1, (f.heapBytes / totalHeap) * 100) : 0}%` }}
                    aria-hidden="true"
                  />
                </td>
                <td>{f.imageModes ? `${formatNumber(f.imageModes.raw)} raw · ${formatNumber(f.imageModes.jpg)} JPEG` : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
