import { Stat } from '../../components/Form.js';
import { formatBytes, formatDuration, formatNumber, formatRate, shortenPath } from '../../lib/format.js';
import type { BuildReport } from '../../lib/types.js';
import type { BuildJob } from '../../stores/builds.js';
import { useDatasetsStore } from '../../stores/datasets.js';
import { useExportStore } from '../../stores/export.js';
import { useProfilesStore } from '../../stores/profiles.js';
import { useUiStore } from '../../stores/ui.js';
import { compression } from './compression.js';
import { LabelMappings } from './LabelMappings.js';
import { SkippedList } from './SkippedList.js';
import { StorageTables } from './StorageTables.js';

/** A finished build's report, and the way on: open the file, profile it, export a loader for it. */
export function ReportCard({ report: r, job }: { report: BuildReport; job: BuildJob }) {
  const setScreen = useUiStore((u) => u.setScreen);
  const openDataset = useDatasetsStore((d) => d.open);
  const setProfileForm = useProfilesStore((p) => p.setForm);
  const setExportForm = useExportStore((e) => e.setForm);
  return (
    <section className="card" data-testid="build-report">
      <header className="card-head">
        <h3>Report</h3>
        <span className="card-sub">{r.source ? `${r.source.kind} · ${shortenPath(r.source.path, 60)}` : null}</span>
      </header>
      <div className="stats">
        <Stat label="Samples written" value={formatNumber(r.numSamples)} testId="report-samples" />
        <Stat label="Skipped" value={formatNumber(r.skipped.length)} testId="report-skipped" />
        <Stat label="File size" value={formatBytes(r.fileSize)} testId="report-size" />
        <Stat label="Pages" value={`${formatNumber(r.pages)} × ${formatBytes(r.pageSize)}`} />
        <Stat label="Compression" value={compression(r)} testId="report-ratio" />
        <Stat label="Time" value={formatDuration(r.elapsedMs)} testId="report-time" />
        <Stat label="Average speed" value={formatRate(r.samplesPerSec)} testId="report-speed" />
        <Stat label="JPEG pass-through" value={formatNumber(r.passThrough)} />
      </div>
      <StorageTables report={r} />
      <LabelMappings job={job} />
      <SkippedList report={r} />
      <div className="actions">
        <button
          type="button"
          className="btn btn-primary"
          data-testid="open-in-dataset"
          onClick={() => {
            setScreen('dataset');
            void openDataset(r.path);
          }}
        >
          Open in Dataset
        </button>
        <button
          type="button"
          className="btn"
          data-testid="profile-this"
          onClick={() => {
            setProfileForm({ file: r.path, mode: 'grid' });
            setScreen('profile');
          }}
        >
          Profile loading
        </button>
        <button
          type="button"
          className="btn"
          onClick={() => {
            setExportForm({ file: r.path, includeBuild: job.config !== null });
            setScreen('export');
          }}
        >
          Export code
        </button>
      </div>
    </section>
  );
}
