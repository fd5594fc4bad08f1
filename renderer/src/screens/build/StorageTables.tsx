import { formatBytes, formatNumber } from '../../lib/format.js';
import type { BuildReport } from '../../lib/types.js';

/** Where a build's bytes went: bytes per field, and how each image field's samples were stored. */
export function StorageTables({ report: r }: { report: BuildReport }) {
  const totalHeap = Object.values(r.heapBytes).reduce((a, b) => a + b, 0);
  const modes = Object.entries(r.imageModes);
  return (
    <div className="two-col">
      <div>
        <h4>Bytes per field</h4>
        <table className="table compact" data-testid="report-bytes">
          <tbody>
            {Object.entries(r.heapBytes).map(([name, bytes]) => (
              <tr key={name}>
                <th scope="row">{name}</th>
                <td className="num">{formatBytes(bytes)}</td>
                <td className="bar-cell">
                  <div className="hbar" style={{ width: `${totalHeap && bytes ? Math.max(1, (bytes / totalHeap) * 100) : 0}%` }} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div>
        <h4>Image modes</h4>
        {modes.length === 0 ? (
          <p className="muted">No image fields.</p>
        ) : (
          <table className="table compact" data-testid="report-modes">
            <thead>
              <tr>
                <th scope="col">Field</th>
                <th scope="col">raw</th>
                <th scope="col">JPEG</th>
                <th scope="col">passed through</th>
              </tr>
            </thead>
            <tbody>
              {modes.map(([name, m]) => (
                <tr key={name}>
                  <th scope="row">{name}</th>
                  <td className="num">{formatNumber(m.raw)}</td>
                  <td className="num">{formatNumber(m.jpg)}</td>
                  <td className="num">{formatNumber(m.passThrough)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </div>
  );
}
