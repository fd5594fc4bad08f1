import type { BuildConfigInput } from '../../../../core/api/build-config.js';
import { ErrorBanner } from '../../components/States.js';
import { useAdviceStore } from '../../stores/advice.js';
import { startErrorFor, useBuildsStore } from '../../stores/builds.js';
import { useUiStore } from '../../stores/ui.js';
import { usePick } from '../../stores/use-pick.js';

/**
 * "Build dataset": how many problems are left, and why a start failed. An existing output is
 * never replaced silently: the host refuses, and the user decides here.
 */
export function BuildActions({ config, errorCount }: { config: BuildConfigInput | null; errorCount: number }) {
  // Only what this shows: a build's progress events must not re-render the form.
  const builds = usePick(useBuildsStore, 'start', 'starting', 'startError', 'startErrorKey');
  const setScreen = useUiStore((u) => u.setScreen);
  const startBuild = async (overwrite = false): Promise<void> => {
    if (!config) return;
    const id = await builds.start(config, overwrite);
    if (id) setScreen('build');
  };
  const startError = startErrorFor(builds, config);
  // The estimate read every file's header: "Ready" only when the build would not stop at one.
  const headers = useAdviceStore((a) => (a.advice && a.madeFor && sameSource(a.madeFor, config) ? (a.advice.headers ?? null) : null));
  const unreadable = headers?.unreadableCount ?? 0;
  const status = errorCount
    ? `${errorCount} ${errorCount === 1 ? 'problem' : 'problems'} to fix before building`
    : unreadable && config?.onError !== 'skip'
      ? `${unreadable} source ${unreadable === 1 ? 'file' : 'files'} cannot be read: the build would stop at the first (skip them, above)`
      : headers
        ? "Ready to build (every file's header read)"
        : 'Ready to build';
  const outputExists = startError?.code === 'OUTPUT_EXISTS';
  return (
    <div className="actions">
      {outputExists ? (
        <div className="banner banner-warn" role="alert" data-testid="overwrite-confirm">
          <div className="banner-text">
            <strong>{config?.output ?? 'The output'} already exists.</strong> Replace it with this build? The old file stays until the new
            one is complete.
          </div>
          <button
            type="button"
            className="btn btn-danger"
            data-testid="overwrite-yes"
            disabled={builds.starting}
            onClick={() => void startBuild(true)}
          >
            Replace it
          </button>
        </div>
      ) : startError ? (
        <ErrorBanner error={startError} title="The build did not start" />
      ) : null}
      <span className={unreadable && config?.onError !== 'skip' ? 'field-msg field-warning' : 'muted'} data-testid="form-status">
        {status}
      </span>
      <button
        type="button"
        className="btn btn-primary btn-large"
        data-testid="build-button"
        disabled={!config || builds.starting}
        onClick={() => void startBuild(false)}
      >
        {builds.starting ? 'Starting…' : 'Build dataset'}
      </button>
    </div>
  );
}

/** Whether the advice (made for the config `madeFor`, as JSON) was made for this config's source. */
function sameSource(madeFor: string, config: BuildConfigInput | null): boolean {
  if (!config) return false;
  try {
    return JSON.stringify((JSON.parse(madeFor) as BuildConfigInput).source) === JSON.stringify(config.source);
  } catch {
    return false;
  }
}
