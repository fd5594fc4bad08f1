import { useShallow } from 'zustand/react/shallow';
import { HealthPanel } from '../components/HealthPanel.js';
import { SampleDetailView } from '../components/SampleDetailView.js';
import { EmptyState, ErrorBanner, Loading } from '../components/States.js';
import { isRemoteUrl } from '../lib/remote-url.js';
import { inspectErrorFor, PREVIEW_COUNT, useDatasetsStore } from '../stores/datasets.js';
import { ClassesCard } from './dataset/ClassesCard.js';
import { FieldsCard } from './dataset/FieldsCard.js';
import { HeaderCard } from './dataset/HeaderCard.js';
import { OpenCard } from './dataset/OpenCard.js';
import { PageMapCard } from './dataset/PageMapCard.js';
import { RemoteRefused } from '../components/RemoteRefused.js';
import { RemoteHealthNote } from './dataset/RemoteNotes.js';
import { SamplesCard } from './dataset/SamplesCard.js';

/** The Dataset screen: open a .beton, its header, fields and page map, its classes and health, and its samples. */
export function DatasetScreen() {
  const d = useDatasetsStore(
    useShallow((s) => ({ inspecting: s.inspecting, inspect: s.inspect, inspectError: inspectErrorFor(s), errorKey: s.inspectErrorKey })),
  );
  const info = d.inspect;
  const refusedUrl = d.inspectError?.code === 'FORBIDDEN' && d.errorKey && isRemoteUrl(d.errorKey) ? d.errorKey : null;
  return (
    <div className="screen" data-testid="screen-dataset">
      <header className="screen-head">
        <h2>Dataset</h2>
        <p>Open any .beton file (written here or by FFCV), local or by URL: its header, fields, where samples live, and decoded samples.</p>
      </header>
      <OpenCard />
      {d.inspecting ? <Loading label="Reading the header and allocation table…" /> : null}
      {d.inspectError && refusedUrl ? <RemoteRefused url={refusedUrl} error={d.inspectError} /> : null}
      {d.inspectError && !refusedUrl ? <ErrorBanner error={d.inspectError} title="Cannot open this file" testId="dataset-error" /> : null}
      {!info && !d.inspecting && !d.inspectError ? (
        <EmptyState title="No dataset open">
          <p>
            Type the path of a .beton file or browse to one, or give its s3:// or https:// URL. Only the metadata is read to show the
            layout; samples are decoded a page of {PREVIEW_COUNT} at a time.
          </p>
        </EmptyState>
      ) : null}
      {info ? (
        <>
          <HeaderCard info={info} />
          {/* The samples first after the header: the grid started 1,300 px down, under the layout cards. */}
          <SamplesCard info={info} />
          {isRemoteUrl(info.path) ? <RemoteHealthNote url={info.path} /> : <HealthPanel />}
          <ClassesCard info={info} />
          <FieldsCard info={info} />
          <PageMapCard info={info} />
        </>
      ) : null}
      <SampleDetailView />
    </div>
  );
}
