import type { InspectResult } from '../../../../core/api/contract.js';
import { Stat } from '../../components/Form.js';
import { formatBytes, formatNumber, shortenPath } from '../../lib/format.js';

/** The file's header: samples, version, page and record sizes. */
export function HeaderCard({ info }: { info: InspectResult }) {
  return (
    <section className="card" data-testid="dataset-header">
      <header className="card-head">
        <h3>Header</h3>
        <span className="card-sub">
          <code title={info.path}>{shortenPath(info.path, 70)}</code>
        </span>
      </header>
      <div className="stats">
        <Stat label="Samples" value={formatNumber(info.numSamples)} testId="dataset-samples" />
        <Stat label="Format version" value={info.version} />
        <Stat label="Page size" value={formatBytes(info.pageSize)} />
        <Stat label="Pages" value={formatNumber(info.numPages)} />
        <Stat label="Record size" value={`${info.recordSize} B`} />
        <Stat label="File size" value={formatBytes(info.fileSize)} />
      </div>
    </section>
  );
}
