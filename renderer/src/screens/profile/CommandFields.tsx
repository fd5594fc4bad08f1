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
        placeholder="python train.py --workers {workers} --epochs 1"
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
      <TextField
        label="Workers to sweep (optional)"
        value={f.execWorkers}
        onChange={(execWorkers) => setForm({ execWorkers })}
        error={e.execWorkers}
        testId="profile-exec-workers"
        placeholder="1, 2, 4, 8"
        inputMode="numeric"
        disabled={execOff}
        hint="Runs the command once per value, filled into {workers}: where does the GPU stop waiting for data?"
      />
      <TextField
        label="Batch sizes to sweep (optional)"
        value={f.execBatchSizes}
        onChange={(execBatchSizes) => setForm({ execBatchSizes })}
        error={e.execBatchSizes}
        testId="profile-exec-batch"
        placeholder="256"
        inputMode="numeric"
        disabled={execOff}
        hint="Filled into {batch_size}."
      />
      <TextField
        label="Seconds per run (optional)"
        value={f.execSeconds}
        onChange={(execSeconds) => setForm({ execSeconds })}
        error={e.execSeconds}
        testId="profile-exec-seconds"
        placeholder="to its end"
        inputMode="decimal"
        disabled={execOff}
        hint="Each run is stopped after this long (a full epoch is rarely needed)."
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
