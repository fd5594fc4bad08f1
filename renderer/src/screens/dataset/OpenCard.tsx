import { useId } from 'react';
import { PathPicker } from '../../components/FileBrowser.js';
import { useDatasetsStore } from '../../stores/datasets.js';
import { usePick } from '../../stores/use-pick.js';

/** Which .beton file to open: a local path (typed or browsed to), or an s3:// / http(s):// URL. */
export function OpenCard() {
  const d = usePick(useDatasetsStore, 'path', 'url', 'urlProblem', 'inspecting', 'setPath', 'setUrl', 'open', 'openUrl');
  const urlId = useId();
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
      <div className="row-wrap open-url">
        <div className="grow path-picker">
          <label htmlFor={urlId}>or a URL (read over the network, never downloaded whole)</label>
          <div className="path-row">
            <input
              id={urlId}
              value={d.url}
              placeholder="s3://bucket/path/train.beton or https://host/train.beton"
              onChange={(e) => d.setUrl(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === 'Enter') {
                  e.preventDefault();
                  void d.openUrl();
                }
              }}
              data-testid="dataset-url"
              aria-invalid={d.urlProblem ? true : undefined}
              spellCheck={false}
              autoComplete="off"
            />
            <button type="button" className="btn" data-testid="dataset-url-open" onClick={() => void d.openUrl()} disabled={d.inspecting}>
              Open URL
            </button>
          </div>
          {d.urlProblem ? (
            <div className="field-msg field-error" role="alert" data-testid="dataset-url-problem">
              {d.urlProblem}
            </div>
          ) : null}
        </div>
      </div>
    </section>
  );
}
