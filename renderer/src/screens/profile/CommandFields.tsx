import { TextField } from '../../components/Form.js';
import { PathPicker } from '../../components/FileBrowser.js';
import type { ProfileForm } from '../../lib/profile-form.js';

/** The "Training command" inputs: the command, how to read its throughput, and the dataset it reads. */
export function CommandFields({
  form: f,
  errors: e,
  execOff,
  setForm,
}: {
  form: ProfileForm;
  errors: Record<string, string | undefined>;
  /** beton serve without --allow-exec refuses training commands (EXEC_DISABLED): said up front. */
  execOff: boolean;
  setForm(patch: Partial<ProfileForm>): void;
}) {
  return (
    <div className="grid-form">
      {execOff ? (
        <div className="span-2 banner banner-warn" role="note" id="exec-disabled-note" data-testid="exec-disabled">
          <div className="banner-text">
            <strong>Training commands are off on this server.</strong>
            <div className="banner-message">
              Whoever holds this server's link could run any shell command as you, so it runs none unless told to. To profile a training
              command, restart it with <code>beton serve --allow-exec</code>.
            </div>
          </div>
        </div>
      ) : null}
      <TextField
        className="span-2"
        label="Training command"
        value={f.command}
        onChange={(command) => setForm({ command })}
        error={execOff ? undefined : e.command}
        testId="profile-command"
        placeholder="python train.py --epochs 1"
        spellCheck={false}
        disabled={execOff}
        {...(execOff ? { 'aria-describedby': 'exec-disabled-note' } : {})}
        hint='It should print JSON lines {"step": n, "images": k}, or give a pattern below.'
      />
      <TextField
        className="span-2"
        label="Throughput pattern (optional)"
        value={f.throughputRegex}
        onChange={(throughputRegex) => setForm({ throughputRegex })}
        error={e.throughputRegex}
        placeholder="images=(?<images>\d+)"
        spellCheck={false}
        disabled={execOff}
      />
      <div className="span-2">
        <PathPicker
          label="Dataset the command reads (optional .beton)"
          value={f.execFile}
          onChange={(execFile) => setForm({ execFile })}
          pick="file"
          accept={['beton']}
          testId="profile-exec-file"
        />
      </div>
    </div>
  );
}
