import { PathPicker } from '../../components/FileBrowser.js';
import { TextField } from '../../components/Form.js';
import { useSourcesStore } from '../../stores/sources.js';
import { usePick } from '../../stores/use-pick.js';

/** Which source to read (a folder or a table; an image list's path column), and "Detect schema". */
export function PickSourceCard() {
  const s = usePick(useSourcesStore, 'path', 'imageColumn', 'detecting', 'setPath', 'setImageColumn', 'detect');
  return (
    <section className="card">
      <div className="row-wrap">
        <div className="grow">
          <PathPicker
            label="Source folder or file"
            value={s.path}
            onChange={s.setPath}
            onPicked={(p) => void s.detect(p)}
            onEnter={() => void s.detect()}
            pick="any"
            accept={['table']}
            testId="source-path"
            placeholder="/data/train or /data/labels.csv"
          />
        </div>
        <div className="narrow">
          <TextField
            label="Image column (lists)"
            value={s.imageColumn}
            onChange={s.setImageColumn}
            placeholder="auto"
            hint="Only for tables of image paths."
          />
        </div>
        <div className="align-end">
          <button
            type="button"
            className="btn btn-primary"
            data-testid="detect-button"
            onClick={() => void s.detect()}
            disabled={s.detecting}
          >
            {s.detecting ? 'Detecting…' : 'Detect schema'}
          </button>
        </div>
      </div>
    </section>
  );
}
