import { CodeBlock } from '../../components/CodeBlock.js';
import { exportFileName } from '../../lib/export-form.js';
import type { ExportResult } from '../../stores/export.js';

/** The generated code, with Copy and Save… (the desktop's save dialog, else a download) and what they did. */
export function ExportResultCard({
  result,
  file,
  notice,
  setNotice,
}: {
  result: ExportResult;
  /** The dataset's path: the saved file is named after it. */
  file: string;
  notice: string | null;
  setNotice(notice: string | null): void;
}) {
  const copy = async (): Promise<void> => {
    try {
      await navigator.clipboard.writeText(result.text);
      setNotice('Copied to the clipboard.');
    } catch {
      setNotice('The clipboard is not available here: select the code and copy it.');
    }
  };

  const save = async (): Promise<void> => {
    const name = exportFileName(file || 'dataset', result.language);
    const dialogs = window.betonDialogs;
    if (typeof dialogs?.saveText === 'function') {
      const where = await dialogs.saveText(name, result.text);
      setNotice(where ? `Saved${typeof where === 'string' ? ` to ${where}` : ''}.` : 'Not saved.');
      return;
    }
    const blob = new Blob([result.text], { type: result.language === 'python' ? 'text/x-python' : 'application/json' });
    const url = URL.createObjectURL(blob);
    const a = document.createElement('a');
    a.href = url;
    a.download = name;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
    setNotice(`Downloaded ${name}.`);
  };

  return (
    <section className="card" data-testid="export-result">
      <header className="card-head">
        <h3>{result.language === 'python' ? 'Python (FFCV)' : 'JSON'}</h3>
        <div className="card-tools">
          <button type="button" className="btn btn-small" data-testid="copy-button" onClick={() => void copy()}>
            Copy
          </button>
          <button type="button" className="btn btn-small" data-testid="save-button" onClick={() => void save()}>
            Save…
          </button>
        </div>
      </header>
      {notice ? (
        <div className="notice" role="status" data-testid="export-notice">
          {notice}
        </div>
      ) : null}
      <CodeBlock text={result.text} language={result.language} />
    </section>
  );
}
