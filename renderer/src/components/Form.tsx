import { useId, type InputHTMLAttributes, type ReactNode } from 'react';

/** Inline message under an input: errors block, warnings inform. */
export function FieldMessage({ id, error, warning }: { id: string; error?: string | undefined; warning?: string | undefined }) {
  if (error)
    return (
      <div id={id} className="field-msg field-error" data-testid="validation-msg" role="alert">
        {error}
      </div>
    );
  if (warning)
    return (
      <div id={id} className="field-msg field-warning" data-testid="validation-warning">
        {warning}
      </div>
    );
  return null;
}

/** The error of a group of inputs (a fieldset of checks): under the group, not tied to one input. */
export function GroupError({ error }: { error?: string | undefined }) {
  return error ? (
    <div className="field-msg field-error" data-testid="validation-msg">
      {error}
    </div>
  ) : null;
}

type InputProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'onChange' | 'value'> & {
  label: ReactNode;
  value: string;
  onChange(v: string): void;
  error?: string | undefined;
  warning?: string | undefined;
  hint?: ReactNode;
  testId?: string;
};

export function TextField({ label, value, onChange, error, warning, hint, testId, className, ...rest }: InputProps) {
  const id = useId();
  const msgId = `${id}-msg`;
  return (
    <div className={`field ${className ?? ''}`}>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={error || warning ? msgId : undefined}
        data-testid={testId}
        {...rest}
      />
      {hint && !error && !warning ? <div className="field-hint">{hint}</div> : null}
      <FieldMessage id={msgId} error={error} warning={warning} />
    </div>
  );
}

export function SelectField<T extends string>({
  label,
  value,
  options,
  onChange,
  testId,
  error,
}: {
  label: ReactNode;
  value: T;
  options: ReadonlyArray<{ value: T; label: string }>;
  onChange(v: T): void;
  testId?: string;
  error?: string | undefined;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        value={value}
        onChange={(e) => onChange(e.target.value as T)}
        data-testid={testId}
        aria-invalid={error ? true : undefined}
      >
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      <FieldMessage id={`${id}-msg`} error={error} />
    </div>
  );
}

export function Check({
  label,
  checked,
  onChange,
  testId,
  disabled,
}: {
  label: ReactNode;
  checked: boolean;
  onChange(v: boolean): void;
  testId?: string;
  disabled?: boolean;
}) {
  return (
    <label className={`check ${disabled ? 'is-disabled' : ''}`}>
      <input type="checkbox" checked={checked} disabled={disabled} onChange={(e) => onChange(e.target.checked)} data-testid={testId} />
      <span>{label}</span>
    </label>
  );
}

export function ProgressBar({ value, label, testId }: { value: number | null; label: string; testId?: string }) {
  const indeterminate = value === null;
  return (
    <div
      className={`progress ${indeterminate ? 'is-indeterminate' : ''}`}
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={indeterminate ? undefined : Math.round(value)}
      data-testid={testId}
    >
      <div className="progress-fill" style={indeterminate ? undefined : { width: `${value}%` }} />
    </div>
  );
}

export function Stat({ label, value, testId }: { label: string; value: ReactNode; testId?: string }) {
  return (
    <div className="stat">
      <div className="stat-label">{label}</div>
      <div className="stat-value" data-testid={testId}>
        {value}
      </div>
    </div>
  );
}
