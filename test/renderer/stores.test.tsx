// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DatasetCheck, ProgressEvent } from '../../core/api/contract.js';
import { setTransport } from '../../renderer/src/lib/api.js';
import { HISTORY_INTERVAL_MS, HISTORY_MAX, lastOkBuild, useBuildsStore } from '../../renderer/src/stores/builds.js';
import { inspectErrorFor, useDatasetsStore } from '../../renderer/src/stores/datasets.js';
import { useProfilesStore } from '../../renderer/src/stores/profiles.js';
import { MAX_SELECTED, toggleSelection, useRunsStore } from '../../renderer/src/stores/runs.js';
import { useSourcesStore } from '../../renderer/src/stores/sources.js';
import { applyTheme, useUiStore } from '../../renderer/src/stores/ui.js';
import { routeEvent } from '../../renderer/src/stores/wire.js';
import { failWith, fakeTransport, resetStores, tick } from './helpers.js';

beforeEach(resetStores);
afterEach(() => setTransport(null));

// recentRate: the host's rate over the last second (null: none yet, as for its first report).
const progress = (jobId: string, done: number, total: number | null = 100, recentRate: number | null = null): ProgressEvent => ({
  jobId,
  kind: 'build',
  done,
  total,
  rate: done * 10,
  etaMs: 1000,
  recentRate,
});
const config = { source: { type: 'image_folder' as const, path: '/d/images' }, output: '/d/images.beton' };

describe('builds store', () => {
  it('an existing output is not replaced unless asked: OUTPUT_EXISTS comes back, then start(config, true) sends overwrite', async () => {
    const t = fakeTransport({
      'builds.start': (p) => {
        if (p.overwrite !== true) throw Object.assign(new Error('/d/images.beton exists; pass --force'), { code: 'OUTPUT_EXISTS' });
        return { jobId: 'j9' };
      },
    });
    expect(await useBuildsStore.getState().start(config)).toBeNull();
    expect(useBuildsStore.getState().startError?.code).toBe('OUTPUT_EXISTS');
    expect(await useBuildsStore.getState().start(config, true)).toBe('j9');
    expect(useBuildsStore.getState().startError).toBeNull();
    expect(t.calls.map((c) => (c.params as { overwrite?: boolean }).overwrite)).toEqual([undefined, true]);
  });

  it('starts a build, tracks progress, throttles the chart history, and takes the report at the end', async () => {
    fakeTransport({ 'builds.start': () => ({ jobId: 'j1' }) });
    const s = useBuildsStore.getState();
    expect(await s.start(config)).toBe('j1');
    expect(useBuildsStore.getState().currentId).toBe('j1');
    const t0 = useBuildsStore.getState().jobs.j1!.startedAt;
    // 10 events 50 ms apart: every one updates the progress, about one in five joins the history.
    // The host has a rate from its 300 ms report on (its window needs a quarter second of reports).
    for (let i = 1; i <= 10; i++) useBuildsStore.getState().onProgress(progress('j1', i * 5, 100, i >= 6 ? 100 : null), t0 + i * 50);
    const job = useBuildsStore.getState().jobs.j1!;
    expect(job.progress).toMatchObject({ done: 50, total: 100, rate: 100 });
    // A report without a rate adds no point; then a point at most every HISTORY_INTERVAL_MS: at 300 ms.
    expect(job.history.map((h) => h.done)).toEqual([30]);
    // The last progress (done === total) always lands in the history.
    useBuildsStore.getState().onProgress(progress('j1', 100, 100, 100), t0 + 510);
    expect(useBuildsStore.getState().jobs.j1!.history.at(-1)).toMatchObject({ done: 100 });
    useBuildsStore.getState().onFinished(
      {
        jobId: 'j1',
        kind: 'build',
        status: 'ok',
        result: {
          path: '/d/images.beton',
          numSamples: 48,
          skipped: [],
          pages: 1,
          pageSize: 8388608,
          fileSize: 1,
          elapsedMs: 600,
          samplesPerSec: 80,
          heapBytes: { image: 10 },
          imageModes: {},
          sourceBytes: 0,
          source: { kind: 'image_folder', path: '/d/images', items: 48 },
          compressionRatio: null,
          passThrough: 0,
          reportPath: null,
        },
      },
      t0 + 700,
    );
    const done = useBuildsStore.getState().jobs.j1!;
    expect(done.status).toBe('ok');
    expect(done.report?.numSamples).toBe(48);
    expect(done.progress).toMatchObject({ done: 48, total: 48, etaMs: 0 });
    // Not the report's average since the start: the chart and the number keep one definition.
    expect(done.progress!.rate).toBe(done.history.at(-1)!.rate);
    expect(lastOkBuild(useBuildsStore.getState())?.id).toBe('j1');
  });

  it("the rate is the host's over the last second (recentRate), for the chart and the number alike, not the average since the start", () => {
    const s = useBuildsStore.getState();
    // A build that starts up for 1.2 s, then writes 240 samples/s; `rate` is its average since the
    // start (what the chart used to plot: 13, 52, 81 … while 240 was shown). The window itself is
    // the writer's (test/writer/rate-window.test.ts).
    const at = (ms: number, done: number, recentRate: number | null = null): ProgressEvent => ({
      jobId: 'r',
      kind: 'build',
      done,
      total: 1000,
      rate: done / (ms / 1000),
      etaMs: null,
      elapsedMs: ms,
      recentRate,
    });
    s.onProgress(at(1200, 16), 5_000);
    expect(useBuildsStore.getState().jobs.r!.progress!.rate).toBeNull(); // the baseline
    expect(useBuildsStore.getState().jobs.r!.history).toEqual([]);
    // Events arrive in bursts: the host's clock decides, not the arrival time.
    for (let k = 1; k <= 12; k++) s.onProgress(at(1200 + k * 250, 16 + k * 60, 240), 5_000 + (k % 3 === 0 ? k * 250 : k * 250 - 120));
    const job = useBuildsStore.getState().jobs.r!;
    expect(job.history.length).toBeGreaterThan(3);
    for (const h of job.history) expect(h.rate).toBeCloseTo(240, 6);
    expect(job.history[0]!.t).toBeCloseTo(1.45, 6);
    expect(job.progress!.rate).toBe(job.history.at(-1)!.rate);
    // A build shorter than the window: its rate is over the whole build, for the number and the one point.
    s.onProgress({ ...at(280, 40), jobId: 'tiny' }, 9_000);
    s.onFinished(
      {
        jobId: 'tiny',
        kind: 'build',
        status: 'ok',
        result: {
          path: '/t.beton',
          numSamples: 48,
          skipped: [],
          pages: 1,
          pageSize: 8388608,
          fileSize: 1,
          elapsedMs: 300,
          samplesPerSec: 160,
          heapBytes: {},
          imageModes: {},
          sourceBytes: 0,
          source: { kind: 'image_folder', path: '/t', items: 48 },
          compressionRatio: null,
          passThrough: 0,
          reportPath: null,
        },
      },
      9_100,
    );
    const tiny = useBuildsStore.getState().jobs.tiny!;
    expect(tiny.progress!.rate).toBeCloseTo(160, 6);
    expect(tiny.history.map((h) => h.rate)).toEqual([tiny.progress!.rate]);
    // 48 images in 120 ms: one report (the baseline) or none before the end — still one point, the whole build's.
    s.onProgress({ ...at(110, 48), jobId: 'fast' }, 9_200);
    s.onFinished(
      {
        jobId: 'fast',
        kind: 'build',
        status: 'ok',
        result: {
          path: '/f.beton',
          numSamples: 48,
          skipped: [],
          pages: 1,
          pageSize: 8388608,
          fileSize: 1,
          elapsedMs: 120,
          samplesPerSec: 400,
          heapBytes: {},
          imageModes: {},
          sourceBytes: 0,
          source: { kind: 'image_folder', path: '/f', items: 48 },
          compressionRatio: null,
          passThrough: 0,
          reportPath: null,
        },
      },
      9_300,
    );
    expect(useBuildsStore.getState().jobs.fast!.history.map((h) => h.rate)).toEqual([400]);
    s.onFinished(
      {
        jobId: 'no-reports',
        kind: 'build',
        status: 'ok',
        result: {
          path: '/f.beton',
          numSamples: 48,
          skipped: [],
          pages: 1,
          pageSize: 8388608,
          fileSize: 1,
          elapsedMs: 120,
          samplesPerSec: 400,
          heapBytes: {},
          imageModes: {},
          sourceBytes: 0,
          source: { kind: 'image_folder', path: '/f', items: 48 },
          compressionRatio: null,
          passThrough: 0,
          reportPath: null,
        },
      },
      9_400,
    );
    expect(useBuildsStore.getState().jobs['no-reports']!.history.map((h) => h.rate)).toEqual([400]);
  });

  it('keeps the history bounded on a long build', () => {
    const s = useBuildsStore.getState();
    for (let i = 0; i < 2000; i++) s.onProgress(progress('long', i, 5000, i === 0 ? null : 4), 1_000_000 + i * HISTORY_INTERVAL_MS);
    const job = useBuildsStore.getState().jobs.long!;
    expect(job.history.length).toBeLessThanOrEqual(HISTORY_MAX);
    expect(job.history.at(-1)!.done).toBe(1999);
    expect(job.history[0]!.done).toBe(1); // the first report (0) has no rate yet
  });

  it('accepts events that arrive before builds.start answers', async () => {
    let release!: () => void;
    fakeTransport({ 'builds.start': () => new Promise((r) => (release = () => r({ jobId: 'early' }))) });
    const started = useBuildsStore.getState().start(config);
    await tick();
    useBuildsStore.getState().onProgress(progress('early', 10));
    release();
    await started;
    const job = useBuildsStore.getState().jobs.early!;
    expect(job.config).toEqual(config);
    expect(job.progress?.done).toBe(10);
  });

  it('reports a refused start and a failed build', async () => {
    fakeTransport({ 'builds.start': () => failWith('FORBIDDEN', '/etc is outside') });
    expect(await useBuildsStore.getState().start(config)).toBeNull();
    expect(useBuildsStore.getState().startError).toMatchObject({ code: 'FORBIDDEN' });
    useBuildsStore.getState().onFinished({ jobId: 'x', kind: 'build', status: 'failed', message: 'image 3 is broken' });
    expect(useBuildsStore.getState().jobs.x).toMatchObject({ status: 'failed', message: 'image 3 is broken', report: null });
  });

  it('ignores profile events', () => {
    useBuildsStore.getState().onProgress({ ...progress('p', 1), kind: 'profile' });
    expect(useBuildsStore.getState().jobs).toEqual({});
  });
});

describe('runs store', () => {
  it('selects at most two runs, dropping the earliest', () => {
    expect(MAX_SELECTED).toBe(2);
    expect(toggleSelection([], 1)).toEqual([1]);
    expect(toggleSelection([1], 2)).toEqual([1, 2]);
    expect(toggleSelection([1, 2], 3)).toEqual([2, 3]);
    expect(toggleSelection([2, 3], 2)).toEqual([3]);
  });

  it('loads the list, loads details of selected runs, compares two, and deletes', async () => {
    const runs = [1, 2, 3].map((id) => ({
      id,
      kind: 'sweep' as const,
      startedAt: '2026-01-01T00:00:00Z',
      finishedAt: null,
      status: 'ok' as const,
      datasetPath: '/d.beton',
      hostname: 'h',
      points: 1,
      bestImagesPerSec: 100 * id,
      verdictKind: 'balanced',
    }));
    let list = runs;
    const t = fakeTransport({
      'runs.list': () => list,
      'runs.get': (p) => ({
        ...runs.find((r) => r.id === p.id),
        machine: { hostname: 'h', cpuModel: 'c', cores: 2 },
        dataset: null,
        samples: [],
        verdict: null,
        points: [{ index: 0, config: { workers: 1, batchSize: 8, order: 'random', osCache: true }, imagesPerSec: 100 * Number(p.id) }],
      }),
      'runs.compare': (p) => ({
        rows: [
          {
            config: { workers: 1, batchSize: 8, order: 'random', osCache: true },
            a: { imagesPerSec: 100 * Number(p.a) },
            b: { imagesPerSec: 100 * Number(p.b) },
            ratio: Number(p.b) / Number(p.a),
          },
        ],
        sameMachine: true,
        sameDataset: true,
      }),
      'runs.delete': (p) => {
        list = list.filter((r) => r.id !== p.id);
        return { deleted: true };
      },
    });
    const s = useRunsStore.getState();
    await s.load();
    expect(useRunsStore.getState().list).toHaveLength(3);
    s.toggle(1);
    s.toggle(3);
    await tick(10);
    let st = useRunsStore.getState();
    expect(st.selected).toEqual([1, 3]);
    expect(st.details[1]?.run?.points[0]?.imagesPerSec).toBe(100);
    expect(st.details[3]?.run?.points[0]?.imagesPerSec).toBe(300);
    expect(st.comparison?.data?.rows[0]?.ratio).toBe(3);
    s.toggle(2); // a third one: run 1 leaves
    await tick(10);
    expect(useRunsStore.getState().selected).toEqual([3, 2]);
    s.askDelete(3);
    expect(useRunsStore.getState().confirmDelete).toBe(3);
    await useRunsStore.getState().remove(3);
    st = useRunsStore.getState();
    expect(st.selected).toEqual([2]);
    expect(st.list.map((r) => r.id)).toEqual([1, 2]);
    expect(st.confirmDelete).toBeNull();
    expect(t.calls.filter((c) => c.method === 'runs.delete')).toEqual([{ method: 'runs.delete', params: { id: 3 } }]);
  });

  it('shows a list error and recovers on runs:changed', async () => {
    let fail = true;
    fakeTransport({ 'runs.list': () => (fail ? failWith('FAILED', 'database is locked') : []) });
    await useRunsStore.getState().load();
    expect(useRunsStore.getState().error).toMatchObject({ code: 'FAILED', message: 'database is locked' });
    fail = false;
    routeEvent({ event: 'runs:changed', data: {} });
    await tick(10);
    expect(useRunsStore.getState().error).toBeNull();
  });
});

describe('profiles store', () => {
  it('collects live samples, buffers events that beat the start answer, and takes the verdict', async () => {
    let release!: () => void;
    fakeTransport({ 'profiles.start': () => new Promise((r) => (release = () => r({ jobId: 'p1' }))) });
    const started = useProfilesStore
      .getState()
      .start({ plan: { file: '/d.beton', workers: [1], batchSizes: [8], secondsPerPoint: 1 } }, [
        { workers: 1, batchSize: 8, order: 'random', osCache: true },
      ]);
    await tick();
    const sample = (t: number) => ({ t, point: 0, imagesPerSec: 100 + t, cpuPerCore: [0.5, 0.7], rssBytes: 1, diskReadBytes: 0, gpus: [] });
    routeEvent({ event: 'jobs:sample', data: { jobId: 'p1', sample: sample(250) } });
    routeEvent({ event: 'jobs:sample', data: { jobId: 'other', sample: sample(1) } });
    release();
    await started;
    expect(useProfilesStore.getState().job?.samples.map((s) => s.t)).toEqual([250]);
    routeEvent({ event: 'jobs:sample', data: { jobId: 'p1', sample: sample(500) } });
    routeEvent({
      event: 'jobs:progress',
      data: { jobId: 'p1', kind: 'profile', done: 1, total: 1, rate: 0, etaMs: null, message: 'point 1 of 1' },
    });
    expect(useProfilesStore.getState().job?.samples).toHaveLength(2);
    expect(useProfilesStore.getState().job?.progress?.message).toBe('point 1 of 1');
    routeEvent({
      event: 'jobs:finished',
      data: {
        jobId: 'p1',
        kind: 'profile',
        status: 'ok',
        result: { runId: 7, verdict: { kind: 'decode-bound', summary: 'Decode-bound.', evidence: ['e1'], advice: ['a1'] }, points: [] },
      },
    });
    const job = useProfilesStore.getState().job!;
    expect(job.status).toBe('ok');
    expect(job.outcome).toMatchObject({ kind: 'sweep', runId: 7, verdict: { kind: 'decode-bound', evidence: ['e1'] } });
  });

  it('a failed command is failed with its code, exit code and stderr tail', async () => {
    fakeTransport({ 'profiles.start': () => ({ jobId: 'x1' }) });
    await useProfilesStore.getState().start({ exec: { command: 'nosuchcmd', throughputRegex: null, file: null } }, []);
    routeEvent({
      event: 'jobs:finished',
      data: {
        jobId: 'x1',
        kind: 'profile',
        status: 'failed',
        code: 'EXEC_FAILED',
        message: 'the command exited with code 127 (command not found): sh: 1: nosuchcmd: not found',
        result: {
          runId: 3,
          exitCode: 127,
          signal: null,
          imagesTotal: 0,
          seconds: 0.1,
          stderrTail: ['sh: 1: nosuchcmd: not found'],
          failure: 'the command exited with code 127 (command not found)',
        },
      },
    });
    const job = useProfilesStore.getState().job!;
    expect(job).toMatchObject({ status: 'failed', code: 'EXEC_FAILED' });
    expect(job.outcome).toMatchObject({
      kind: 'exec',
      exitCode: 127,
      stderrTail: ['sh: 1: nosuchcmd: not found'],
      failure: 'the command exited with code 127 (command not found)',
    });
  });

  it('cancel ends "Cancelling…" when the host no longer has the job (no jobs:finished will come)', async () => {
    fakeTransport({
      'profiles.start': () => ({ jobId: 'gone' }),
      'profiles.cancel': () => ({ cancelled: false }),
      'builds.start': () => ({ jobId: 'b-gone' }),
      'builds.cancel': () => ({ cancelled: false }),
    });
    await useProfilesStore.getState().start({ plan: { file: '/d.beton' } }, []);
    await useProfilesStore.getState().cancel();
    expect(useProfilesStore.getState().job).toMatchObject({ status: 'cancelled', cancelling: false });
    await useBuildsStore.getState().start(config);
    await useBuildsStore.getState().cancel('b-gone');
    expect(useBuildsStore.getState().jobs['b-gone']).toMatchObject({ status: 'cancelled', cancelling: false });
  });

  it('keeps one running profile at a time', async () => {
    fakeTransport({ 'profiles.start': () => ({ jobId: 'a' }) });
    const params = { plan: { file: '/d.beton' } };
    expect(await useProfilesStore.getState().start(params, [])).toBe('a');
    expect(await useProfilesStore.getState().start(params, [])).toBeNull();
  });
});

describe('sources and datasets stores', () => {
  it('detects a source into an editable form, and reports errors with their code', async () => {
    fakeTransport({
      'sources.detect': (p) =>
        p.path === '/etc'
          ? failWith('FORBIDDEN', '/etc is outside the folders')
          : { source: { type: 'image_folder', path: p.path }, fields: [{ name: 'label', type: 'int' }], length: 3 },
    });
    await useSourcesStore.getState().detect('/d/images');
    expect(useSourcesStore.getState().form?.output).toBe('/d/images.beton');
    useSourcesStore.getState().updateField(0, { name: 'y' });
    expect(useSourcesStore.getState().form?.fields[0]?.name).toBe('y');
    await useSourcesStore.getState().detect('/etc');
    expect(useSourcesStore.getState().error?.code).toBe('FORBIDDEN');
    expect(useSourcesStore.getState().form).toBeNull();
  });

  it('opens a dataset, previews its first page and pages on', async () => {
    const t = fakeTransport({
      'datasets.inspect': (p) => ({
        path: p.path,
        fileSize: 1,
        version: 2,
        numSamples: 50,
        pageSize: 8388608,
        numPages: 1,
        recordSize: 24,
        fields: [],
        regions: [],
        pageMap: [[0, 0, 49, 100]],
      }),
      'datasets.preview': (p) => ({
        path: p.path,
        start: p.start,
        numSamples: 50,
        samples: [{ index: p.start, fields: { label: { kind: 'text', text: '1' } } }],
      }),
    });
    await useDatasetsStore.getState().open('/d.beton');
    expect(useDatasetsStore.getState().preview?.start).toBe(0);
    await useDatasetsStore.getState().goTo(24);
    expect(useDatasetsStore.getState().preview?.start).toBe(24);
    // Past the end: the last page (48–49), not a page of one sample starting at 49.
    await useDatasetsStore.getState().goTo(500, true);
    expect(useDatasetsStore.getState()).toMatchObject({ start: 48, focus: 49 });
    expect(t.calls.filter((c) => c.method === 'datasets.preview').map((c) => (c.params as { start: number }).start)).toEqual([0, 24, 48]);
  });

  it('opens a URL from the URL field: the scheme is checked before any call; no health check; a refusal shows while the URL is unchanged', async () => {
    const t = fakeTransport({
      'datasets.inspect': (p) => {
        if (String(p.path).startsWith('s3://other/')) failWith('FORBIDDEN', `${String(p.path)} is outside the remote prefixes`);
        return {
          path: p.path,
          fileSize: 1,
          version: 2,
          numSamples: 0,
          pageSize: 8388608,
          numPages: 0,
          recordSize: 24,
          fields: [],
          regions: [],
          pageMap: [],
        };
      },
    });
    const d = () => useDatasetsStore.getState();
    d().setUrl('ftp://x/a.beton');
    await d().openUrl();
    expect(d().urlProblem).toMatch(/^ftp:\/\/ URLs cannot be opened here/);
    d().setUrl('s3://bucket');
    expect(d().urlProblem).toBeNull();
    await d().openUrl();
    expect(d().urlProblem).toMatch(/key is missing/);
    expect(t.calls).toEqual([]);
    d().setPath('/local.beton');
    d().setUrl(' s3://data/a.beton ');
    await d().openUrl();
    expect(d()).toMatchObject({ openPath: 's3://data/a.beton', url: 's3://data/a.beton', path: '/local.beton', urlProblem: null });
    expect(t.calls.map((c) => c.method)).toEqual(['datasets.inspect']);
    // A link (#/dataset?file=https://…) fills the URL field, not the path field.
    await d().open('https://host/b.beton');
    expect(d()).toMatchObject({ url: 'https://host/b.beton', path: '/local.beton' });
    d().setUrl('s3://other/a.beton');
    await d().openUrl();
    expect(inspectErrorFor(d())?.code).toBe('FORBIDDEN');
    d().setUrl('s3://other/b.beton');
    expect(inspectErrorFor(d())).toBeNull();
  });

  it('"Go to sample 999" of 1000 shows the page holding it (984–999) with 999 marked, not a one-item page', async () => {
    const t = fakeTransport({
      'datasets.inspect': (p) => ({
        path: p.path,
        fileSize: 1,
        version: 2,
        numSamples: 1000,
        pageSize: 8388608,
        numPages: 1,
        recordSize: 24,
        fields: [],
        regions: [],
        pageMap: [],
      }),
      'datasets.preview': (p) => ({ path: p.path, start: p.start, numSamples: 1000, samples: [] }),
    });
    await useDatasetsStore.getState().open('/d.beton');
    await useDatasetsStore.getState().goTo(999, true);
    expect(useDatasetsStore.getState()).toMatchObject({ start: 984, focus: 999 });
    expect(t.calls.filter((c) => c.method === 'datasets.preview').at(-1)!.params).toMatchObject({ start: 984, count: 24 });
    await useDatasetsStore.getState().goTo(984 - 24); // Previous: a plain page, nothing marked
    expect(useDatasetsStore.getState()).toMatchObject({ start: 960, focus: null });
  });
});

describe('datasets store: the check as a job', () => {
  const check: DatasetCheck = {
    format: 'beton-studio/dataset-check',
    version: 1,
    beton: { file: '/d.beton', contentSha256: 'x', dataSha256: 'y', fileVersion: '1:1:1', fileSize: 1, numSamples: 100 },
    imageField: 'image',
    labelField: null,
    thresholds: { hamming: 7, minSide: 16, maxAspect: 10, minStdDev: 2 },
    result: { corrupt: [], duplicates: [], near_duplicates: [], outliers: [], classes: {} },
    labelConflicts: { duplicates: 0, near_duplicates: 0 },
    elapsedMs: 10,
    samplesPerSec: 1,
    createdAt: '2026-01-01T00:00:00Z',
  };
  const checkProgress = (jobId: string, done: number): ProgressEvent => ({ jobId, kind: 'check', done, total: 100, rate: 5, etaMs: 1000 });

  it('events that come before checks.start answers are applied once its id is known; the result lands in check', async () => {
    fakeTransport({
      'checks.start': () => {
        // The host's events may beat its answer to the client.
        routeEvent({ event: 'jobs:progress', data: checkProgress('c1', 40) });
        routeEvent({ event: 'jobs:progress', data: checkProgress('other', 99) });
        return { jobId: 'c1' };
      },
    });
    useDatasetsStore.setState({ openPath: '/d.beton' });
    await useDatasetsStore.getState().loadCheck(true);
    expect(useDatasetsStore.getState()).toMatchObject({ checkRunning: true, checkJob: { id: 'c1', progress: { done: 40, total: 100 } } });
    routeEvent({ event: 'jobs:progress', data: checkProgress('c1', 70) });
    expect(useDatasetsStore.getState().checkJob?.progress?.done).toBe(70);
    routeEvent({ event: 'jobs:finished', data: { jobId: 'c1', kind: 'check', status: 'ok', result: check } });
    expect(useDatasetsStore.getState()).toMatchObject({ checkRunning: false, checkJob: null, check, checkError: null });
  });

  it('Cancel: checks.cancel with the job id; the cancelled end is a notice, not an error; a failed one is an error', async () => {
    const t = fakeTransport({ 'checks.start': () => ({ jobId: 'c2' }), 'checks.cancel': () => ({ cancelled: true }) });
    useDatasetsStore.setState({ openPath: '/d.beton' });
    await useDatasetsStore.getState().loadCheck(true);
    routeEvent({ event: 'jobs:progress', data: checkProgress('c2', 10) });
    const cancelling = useDatasetsStore.getState().cancelCheck();
    expect(useDatasetsStore.getState().checkJob?.cancelling).toBe(true);
    await cancelling;
    expect(t.calls.at(-1)).toEqual({ method: 'checks.cancel', params: { jobId: 'c2' } });
    routeEvent({ event: 'jobs:finished', data: { jobId: 'c2', kind: 'check', status: 'cancelled', message: 'cancelled' } });
    expect(useDatasetsStore.getState()).toMatchObject({ checkRunning: false, checkJob: null, checkCancelled: true, checkError: null });
    fakeTransport({ 'checks.start': () => ({ jobId: 'c3' }) });
    await useDatasetsStore.getState().loadCheck(true);
    expect(useDatasetsStore.getState().checkCancelled).toBe(false);
    routeEvent({ event: 'jobs:finished', data: { jobId: 'c3', kind: 'check', status: 'failed', code: 'CORRUPT', message: 'bad header' } });
    expect(useDatasetsStore.getState()).toMatchObject({ checkRunning: false, checkJob: null, checkCancelled: false });
    expect(useDatasetsStore.getState().checkError).toMatchObject({ code: 'CORRUPT', message: 'bad header' });
  });
});

describe('ui store: theme', () => {
  const realMatchMedia = globalThis.matchMedia;
  afterEach(() => {
    globalThis.matchMedia = realMatchMedia;
    useUiStore.getState().setTheme('system');
  });
  const osPrefers = (dark: boolean): void => {
    globalThis.matchMedia = ((q: string) => ({
      matches: dark && q.includes('dark'),
      media: q,
      addEventListener: () => {},
      removeEventListener: () => {},
    })) as unknown as typeof matchMedia;
  };

  it('"system" resolves to the OS scheme, so the stylesheet needs each palette once', () => {
    osPrefers(true);
    useUiStore.getState().setTheme('system');
    expect(document.documentElement.dataset.theme).toBe('dark');
    osPrefers(false);
    applyTheme('system');
    expect(document.documentElement.dataset.theme).toBe('light');
  });

  it('an explicit choice wins over the OS and is kept', () => {
    osPrefers(true);
    useUiStore.getState().setTheme('light');
    expect(document.documentElement.dataset.theme).toBe('light');
    expect(localStorage.getItem('beton.theme')).toBe('light');
    useUiStore.getState().setTheme('dark');
    expect(document.documentElement.dataset.theme).toBe('dark');
  });
});
