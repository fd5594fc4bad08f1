import { FIELD_TYPE } from '../../../../core/api/constants.js';
import type { InspectResult } from '../../../../core/api/contract.js';
import { classLabel } from '../../components/ClassHistogram.js';
import { FieldFilter } from '../../components/FieldFilter.js';
import { SampleTable } from '../../components/SampleTable.js';
import { ErrorBanner, Skeleton } from '../../components/States.js';
import { formatNumber } from '../../lib/format.js';
import { PREVIEW_COUNT, shownTotal, useDatasetsStore } from '../../stores/datasets.js';
import { Pager } from './Pager.js';
import { Thumbs } from './Thumbs.js';
import { usePick } from '../../stores/use-pick.js';

/** Whether a dataset is shown as images (a thumbnail grid) or as a table of values. */
const hasMedia = (info: InspectResult): boolean =>
  info.fields.some((f) => f.type === FIELD_TYPE.rgbImage || f.type === FIELD_TYPE.videoClip);

/** The decoded samples: a page of thumbnails, or a table of values, with the filters and the pager. */
export function SamplesCard({ info }: { info: InspectResult }) {
  const d = usePick(
    useDatasetsStore,
    'inspect',
    'openPath',
    'labelFilter',
    'where',
    'start',
    'focus',
    'preview',
    'previewLoading',
    'previewError',
    'goTo',
    'openDetail',
  );
  const filter = d.labelFilter;
  const counts = d.inspect?.labels?.counts ?? [];
  const n = shownTotal(d);
  const filterName = filter === null ? null : classLabel(counts.find((c) => c.label === filter) ?? { label: filter, name: null });
  const last = Math.min(n, d.start + PREVIEW_COUNT) - 1;
  const table = !hasMedia(info);
  return (
    <section className="card" aria-label="Samples">
      <header className="card-head">
        <h3>Samples</h3>
        <span className="card-sub" data-testid="preview-range">
          {n
            ? table
              ? `${formatNumber(n)} rows`
              : `${formatNumber(d.start)}–${formatNumber(last)} of ${formatNumber(n)}`
            : filter === null && d.where === null
              ? 'empty dataset'
              : 'no samples'}
          {filterName !== null ? ` in ${filterName}` : ''}
          {d.where !== null ? ' matching the field filter' : ''}
        </span>
      </header>
      <FieldFilter info={info} />
      <Pager numSamples={info.numSamples} total={n} paged={!table} filterName={filterName} />
      {d.previewError ? (
        <ErrorBanner error={d.previewError} title="Cannot decode these samples" onRetry={() => void d.goTo(d.start)} />
      ) : null}
      {table && d.openPath ? (
        <SampleTable
          path={d.openPath}
          total={n}
          columns={info.fields.map((f) => f.name)}
          label={filter}
          where={d.where}
          focus={d.focus}
          onOpen={(i) => void d.openDetail(i)}
        />
      ) : null}
      {!table && d.previewLoading && !d.preview ? <Skeleton rows={4} height={64} /> : null}
      {!table && d.preview ? (
        <Thumbs preview={d.preview} loading={d.previewLoading} focus={d.focus} open={(i) => void d.openDetail(i)} />
      ) : null}
    </section>
  );
}
