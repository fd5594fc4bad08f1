import type { InspectResult } from '../../../../core/api/contract.js';
import { formatBytes, formatNumber } from '../../lib/format.js';
import { PREVIEW_COUNT, useDatasetsStore } from '../../stores/datasets.js';

/** Cells drawn at most: a larger file says how many more. */
const MAX_PAGES = 2048;

/** Which samples live on which page, how full each is (a cell opens its samples), and the file's regions. */
export function PageMapCard({ info }: { info: InspectResult }) {
  const goTo = useDatasetsStore((s) => s.goTo);
  const start = useDatasetsStore((s) => s.start);
  const filtered = useDatasetsStore((s) => s.labelFilter !== null);
  const setLabelFilter = useDatasetsStore((s) => s.setLabelFilter);
  const end = start + PREVIEW_COUNT - 1;
  return (
    <section className="card" aria-label="Page map">
      <header className="card-head">
        <h3>Page map</h3>
        <span className="card-sub">Each cell is a page; darker = fuller. Pick one to see its samples.</span>
      </header>
      {info.pageMap.length === 0 ? (
        <p className="muted">No data pages (every field is stored in the sample records).</p>
      ) : (
        <div className="page-map" data-testid="page-map" data-count={info.pageMap.length}>
          {info.pageMap.slice(0, MAX_PAGES).map(([page, lo, hi, used]) => {
            const fill = info.pageSize ? used / info.pageSize : 0;
            const current = !filtered && lo <= end && hi >= start;
            return (
              <button
                key={page}
                type="button"
                className={`page-cell ${current ? 'is-current' : ''}`}
                style={{ ['--fill' as string]: String(Math.min(1, Math.max(0.08, fill))) }}
                title={`Page ${page}: samples ${lo}–${hi}, ${formatBytes(used)} of ${formatBytes(info.pageSize)} used`}
                aria-label={`Page ${page}, samples ${lo} to ${hi}, ${Math.round(fill * 100)}% used`}
                onClick={() => void (filtered ? setLabelFilter(null) : Promise.resolve()).then(() => goTo(lo, true))}
                data-testid="page-cell"
              />
            );
          })}
          {info.pageMap.length > MAX_PAGES ? (
            <span className="muted">…{formatNumber(info.pageMap.length - MAX_PAGES)} more pages</span>
          ) : null}
        </div>
      )}
      <details className="regions">
        <summary>File regions</summary>
        <table className="table compact">
          <tbody>
            {info.regions.map((r) => (
              <tr key={r.name}>
                <th scope="row">{r.name}</th>
                <td className="num">@{formatNumber(r.offset)}</td>
                <td className="num">{formatBytes(r.size)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </section>
  );
}
