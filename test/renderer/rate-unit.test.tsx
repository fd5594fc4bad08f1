// @vitest-environment happy-dom
/**
 * Issue 23: a video dataset's loader delivers clips, not images. The Runs table's best-rate
 * column and the live Profile charts say the unit of the dataset measured (lib/format.ts
 * rateUnit), where they said img/s for every dataset.
 */
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunSummary } from '../../core/api/contract.js';
import type { PointResult } from '../../core/api/profile-model.js';
import { setTransport } from '../../renderer/src/lib/api.js';
import { EngineSummary, PointsTable } from '../../renderer/src/components/PointsTable.js';
import { sharedRateUnit } from '../../renderer/src/lib/run-rates.js';
import { ProfileScreen } from '../../renderer/src/screens/ProfileScreen.js';
import { RunsTable } from '../../renderer/src/screens/runs/RunsTable.js';
import { SelectedRuns } from '../../renderer/src/screens/runs/SelectedRuns.js';
import type { ProfileRunView } from '../../renderer/src/lib/types.js';
import { useProfilesStore } from '../../renderer/src/stores/profiles.js';
import { useRunsStore } from '../../renderer/src/stores/runs.js';
import { fakeTransport, resetStores, sample } from './helpers.js';

const VIDEO = [
  { name: 'clip', type: 'video_clip', typeId: 7 },
  { name: 'label', type: 'int', typeId: 0 },
];
const IMAGES = [
  { name: 'image', type: 'rgb_image', typeId: 2 },
  { name: 'label', type: 'int', typeId: 0 },
];

const summary = (id: number, datasetSchema: RunSummary['datasetSchema']): RunSummary => ({
  id,
  kind: 'sweep',
  startedAt: '2026-01-01T00:00:00Z',
  finishedAt: null,
  status: 'ok',
  datasetPath: `/d${id}.beton`,
  hostname: 'h',
  points: 1,
  bestImagesPerSec: 120 * id,
  datasetSchema,
  verdictKind: null,
  failure: null,
});

beforeEach(() => {
  resetStores();
});
afterEach(() => {
  cleanup();
  setTransport(null);
});

describe('the rate says what it counts', () => {
  it('Runs: the best-rate header names the unit the runs share; mixed units go into each cell', () => {
    fakeTransport({});
    useRunsStore.setState({ list: [summary(1, VIDEO), summary(2, VIDEO)], loaded: true });
    const { rerender } = render(<RunsTable />);
    expect(screen.getByTestId('runs-best-header').textContent).toBe('Best clips/s');
    act(() => useRunsStore.setState({ list: [summary(1, IMAGES), summary(2, null)] }));
    rerender(<RunsTable />);
    // An exec run without a recorded dataset counts the images its command reports.
    expect(screen.getByTestId('runs-best-header').textContent).toBe('Best images/s');
    act(() => useRunsStore.setState({ list: [summary(1, VIDEO), summary(2, IMAGES)] }));
    rerender(<RunsTable />);
    expect(screen.getByTestId('runs-best-header').textContent).toBe('Best rate');
    const cells = screen.getAllByTestId('run-row').map((row) => row.querySelectorAll('td')[7]!.textContent);
    expect(cells).toEqual(['120clips/s', '240images/s']);
    expect(screen.getAllByTestId('run-rate-unit').map((u) => u.textContent)).toEqual(['clips/s', 'images/s']);
    expect(sharedRateUnit([{ datasetSchema: undefined }])).toBe('images/s');
  });

  it('Runs: the overlay chart of selected runs is titled in their shared unit, and says when they differ', () => {
    fakeTransport({});
    const run = (id: number, schema: typeof VIDEO) =>
      ({
        id,
        kind: 'sweep',
        plan: { file: `/d${id}.beton` },
        points: [],
        samples: [],
        dataset: { path: `/d${id}.beton`, schema },
      }) as unknown as ProfileRunView;
    useRunsStore.setState({ selected: [1], details: { 1: { loading: false, error: null, run: run(1, VIDEO) } } } as never);
    const { rerender } = render(<SelectedRuns />);
    expect(screen.getByTestId('overlay-chart').textContent).toContain('Clips/s vs workers');
    act(() =>
      useRunsStore.setState({
        selected: [1, 3],
        details: { 1: { loading: false, error: null, run: run(1, VIDEO) }, 3: { loading: false, error: null, run: run(3, IMAGES) } },
      } as never),
    );
    rerender(<SelectedRuns />);
    expect(screen.getByTestId('overlay-chart').textContent).toContain('Rate vs workers (the runs count different samples)');
  });

  it('Profile: a sweep of a video dataset charts and states clips/s', async () => {
    fakeTransport({
      'profiles.start': () => ({ jobId: 'p1' }),
      'datasets.inspect': () => ({ numSamples: 64, fields: VIDEO }),
    });
    useProfilesStore.getState().setForm({ file: '/v.beton' });
    await useProfilesStore.getState().checkFile();
    const grid = [{ workers: 1, batchSize: 8, order: 'random' as const, osCache: true }];
    await useProfilesStore.getState().start({ plan: { file: '/v.beton' } }, grid);
    render(<ProfileScreen />);
    act(() => useProfilesStore.getState().onSample({ jobId: 'p1', sample: sample(250, 0, 40) }));
    expect(screen.getByTestId('profile-rate').textContent).toBe('now 40 clips/s');
    expect(screen.getByTestId('chart-points').getAttribute('aria-label')).toBe('Clips/s vs workers');
    expect(screen.getByTestId('chart-timeline').textContent).toMatch(/clips\/s over time/);
    expect(screen.getByTestId('chart-timeline').textContent).not.toMatch(/images\/s/);
  });

  it("the points table and the engines' summary count clips for a video dataset", () => {
    const point = (engine: 'beton' | 'ffcv', ips: number): PointResult => ({
      index: engine === 'beton' ? 0 : 1,
      config: { workers: 2, batchSize: 8, order: 'random', osCache: true, engine },
      images: 800,
      seconds: 3,
      imagesPerSec: ips,
      batchesPerSec: ips / 8,
      waitP50Ms: 1,
      waitP95Ms: 2,
      workerBusyMsPerBatch: 5,
      cpuPerCore: [0.5],
      rssPeakBytes: 1,
      diskReadBytes: 0,
      pageCacheResident: null,
      gpuUtilMean: null,
    });
    const points = [point('beton', 120), point('ffcv', 60)];
    render(
      <>
        <EngineSummary points={points} unit="clips/s" />
        <PointsTable points={points} bestIndex={null} unit="clips/s" />
      </>,
    );
    expect(screen.getByTestId('points-table').querySelectorAll('th')[1]!.textContent).toBe('clips/s');
    expect(screen.getByTestId('engine-summary').textContent).toMatch(/beton: 120 clips\/s at/);
    expect(screen.getByTestId('engine-summary').textContent).not.toMatch(/img/);
  });

  it('Profile: an image dataset stays in images/s', async () => {
    fakeTransport({
      'profiles.start': () => ({ jobId: 'p2' }),
      'datasets.inspect': () => ({ numSamples: 64, fields: IMAGES }),
    });
    useProfilesStore.getState().setForm({ file: '/i.beton' });
    await useProfilesStore.getState().checkFile();
    await useProfilesStore.getState().start({ plan: { file: '/i.beton' } }, []);
    render(<ProfileScreen />);
    act(() => useProfilesStore.getState().onSample({ jobId: 'p2', sample: sample(250, 0, 40) }));
    expect(screen.getByTestId('profile-rate').textContent).toBe('now 40 img/s');
    expect(screen.getByTestId('chart-points').getAttribute('aria-label')).toBe('Images/s vs workers');
  });
});
