import { useShallow } from 'zustand/react/shallow';
import { EmptyState, ErrorBanner, Loading } from '../components/States.js';
import { sourceErrorFor, useSourcesStore } from '../stores/sources.js';
import { BuildFormView } from './sources/BuildFormView.js';
import { PickSourceCard } from './sources/PickSourceCard.js';

/** The Sources screen: pick a source, check the detected schema, and build a .beton. */
export function SourcesScreen() {
  const s = useSourcesStore(
    useShallow((x) => ({ hasForm: x.form !== null, detecting: x.detecting, sourceError: sourceErrorFor(x), detect: x.detect })),
  );
  return (
    <div className="screen" data-testid="screen-sources">
      <header className="screen-head">
        <h2>Sources</h2>
        <p>
          Pick a folder of images (one sub-folder per class) or a table (CSV, TSV, Parquet, JSON lines, .npy/.npz), check the detected
          schema, and build a .beton.
        </p>
      </header>
      <PickSourceCard />
      {s.detecting ? <Loading label="Reading the source and detecting its schema…" /> : null}
      {s.sourceError ? <ErrorBanner error={s.sourceError} title="Cannot read this source" onRetry={() => void s.detect()} /> : null}
      {!s.hasForm && !s.detecting && !s.sourceError ? (
        <EmptyState title="No source chosen yet">
          <p>
            Type a path or use Browse… to choose a folder or a file. Folders are read as <em>ImageFolder</em> (labels from sub-folder names,
            as torchvision); tables become one field per column.
          </p>
        </EmptyState>
      ) : null}
      {s.hasForm ? <BuildFormView /> : null}
    </div>
  );
}
