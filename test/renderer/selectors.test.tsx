// @vitest-environment happy-dom
/**
 * Issue 23: screens subscribed to whole stores and re-rendered on every progress event of a
 * build. The Sources and Build screens select what they show: a running build's progress
 * does not re-render the Sources form, nor the Build screen while another build is shown.
 */
import { act, cleanup, render } from '@testing-library/react';
import { Profiler } from 'react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setTransport } from '../../renderer/src/lib/api.js';
import { BuildScreen } from '../../renderer/src/screens/BuildScreen.js';
import { SourcesScreen } from '../../renderer/src/screens/SourcesScreen.js';
import { useBuildsStore } from '../../renderer/src/stores/builds.js';
import { fakeTransport, resetStores } from './helpers.js';

beforeEach(() => {
  resetStores();
  fakeTransport({});
});
afterEach(() => {
  cleanup();
  setTransport(null);
});

const progress = (jobId: string, done: number) =>
  useBuildsStore.getState().onProgress({ jobId, kind: 'build', done, total: 100, rate: 1, etaMs: null, elapsedMs: done * 100 });

describe('screens select from stores', () => {
  it("a build's progress does not re-render the Sources screen", () => {
    let commits = 0;
    render(
      <Profiler id="sources" onRender={() => commits++}>
        <SourcesScreen />
      </Profiler>,
    );
    const before = commits;
    act(() => {
      for (let i = 1; i <= 5; i++) progress('b1', i);
    });
    expect(useBuildsStore.getState().jobs.b1!.progress!.done).toBe(5);
    expect(commits).toBe(before);
  });

  it('the Build screen follows the build it shows, not another one', () => {
    act(() => {
      progress('b1', 1);
      progress('b2', 1);
      useBuildsStore.getState().select('b1');
    });
    let commits = 0;
    render(
      <Profiler id="build" onRender={() => commits++}>
        <BuildScreen />
      </Profiler>,
    );
    const before = commits;
    act(() => {
      for (let i = 2; i <= 5; i++) progress('b2', i);
    });
    expect(commits).toBe(before);
    act(() => progress('b1', 2));
    expect(commits).toBeGreaterThan(before);
  });
});
