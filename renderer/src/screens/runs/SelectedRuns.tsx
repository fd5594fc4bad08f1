import { useMemo } from 'react';
import { ChartCard, Lines } from '../../components/Charts.js';
import { ErrorBanner, Loading } from '../../components/States.js';
import { overlayChart } from '../../lib/series.js';
import { sharedRateUnit } from '../../lib/run-rates.js';
import type { ProfileRunView } from '../../lib/types.js';
import { useRunsStore } from '../../stores/runs.js';
import { CompareTable } from './CompareTable.js';
import { SideBySide } from './SideBySide.js';
import { usePick } from '../../stores/use-pick.js';

/** The runs picked for overlay: their throughput on one chart and, for two, their settings and points compared. */
export function SelectedRuns() {
  const { selected, details, comparison } = usePick(useRunsStore, 'selected', 'details', 'comparison');
  const chosen = useMemo(() => selected.map((id) => details[id]?.run).filter((x): x is ProfileRunView => !!x), [selected, details]);
  const overlay = useMemo(() => overlayChart(chosen), [chosen]);
  // One unit when every run measured the same kind of sample (images, clips); otherwise the chart says the units differ.
  const unit = sharedRateUnit(chosen.map((r) => ({ datasetSchema: r.dataset?.schema ?? null })));
  if (!selected.length) return null;
  const [a, b] = [...chosen].sort((x, y) => x.id - y.id);
  return (
    <>
      {selected.some((id) => details[id]?.loading) ? <Loading label="Loading the selected runs…" /> : null}
      {selected.map((id) =>
        details[id]?.error ? <ErrorBanner key={id} error={details[id]!.error!} title={`Cannot load run ${id}`} /> : null,
      )}
      <ChartCard
        title={unit ? `${unit[0]!.toUpperCase()}${unit.slice(1)} vs workers` : 'Rate vs workers (the runs count different samples)'}
        subtitle={`best per worker count · ${selected.map((id) => `run ${id}`).join(' vs ')}`}
        testId="overlay-chart"
        count={overlay.rows.length}
        empty="The selected runs have no measured points (command runs are timelines only)."
      >
        <Lines
          rows={overlay.rows}
          x="workers"
          lines={overlay.series.map((k) => ({ key: k }))}
          xLabel="workers"
          xTicks={overlay.rows.map((r) => r.workers)}
          dots
          connectNulls
        />
      </ChartCard>
      {chosen.length === 2 && a && b ? <SideBySide a={a} b={b} /> : null}
      {comparison?.data ? <CompareTable a={comparison.a} b={comparison.b} data={comparison.data} /> : null}
      {comparison?.error ? <ErrorBanner error={comparison.error} title="Cannot compare" /> : null}
    </>
  );
}
