import { PathPicker } from '../../components/FileBrowser.js';
import { useDatasetsStore } from '../../stores/datasets.js';
import { usePick } from '../../stores/use-pick.js';

/** Which .beton file to open. */
export function OpenCard() {
  const d = usePick(useDatasetsStore, 'path', 'inspecting', 'setPath', 'open');
  return (
    <section className="card">
      <div className="row-wrap">
        <div className="grow">
          <PathPicker
            label=".beton file"
            value={d.path}
            onChange={d.setPath}
            onPicked={(p) => void d.open(p)}
            onEnter={() => void d.open()}
            pick="file"
            accept={['beton']}
            testId="dataset-path"
            placeholder="/data/train.beton"
          />
        </div>
        <div className="align-end">
          <button
            type="button"
            className="btn btn-primary"
            data-testid="dataset-open"
            onClick={() => void d.open()}
            disabled={d.inspecting}
          >
            {d.inspecting ? 'Opening…' : 'Open'}
          </button>
        </div>
      </div>
    </section>
  );
}
