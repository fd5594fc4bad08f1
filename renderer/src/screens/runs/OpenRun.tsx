import { ErrorBanner, Loading } from '../../components/States.js';
import { useRunsStore } from '../../stores/runs.js';
import { RunDetail } from './RunDetail.js';

/** The run opened with "Details": in full once loaded, or why it cannot be. */
export function OpenRun() {
  const open = useRunsStore((r) => r.open);
  const detail = useRunsStore((r) => (r.open === null ? undefined : r.details[r.open]));
  const openRun = useRunsStore((r) => r.openRun);
  if (open === null) return null;
  if (detail?.run) return <RunDetail run={detail.run} onClose={() => openRun(null)} />;
  if (detail?.error) return <ErrorBanner error={detail.error} title={`Cannot load run ${open}`} />;
  return <Loading label={`Loading run ${open}…`} />;
}
