// @vitest-environment happy-dom
/** Issue 14 defects 3 and 7, feature 5: store state follows its inputs; video and label-mapping forms; fitted defaults. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DetectedSource } from '../../core/api/contract.js';
import { splitInlineCode } from '../../renderer/src/components/InlineMarkdown.js';
import { setTransport } from '../../renderer/src/lib/api.js';
import { fitBatchSize } from '../../renderer/src/lib/batch-size.js';
import { formFromDetected, validateBuildForm } from '../../renderer/src/lib/build-form.js';
import { buildFor, startErrorFor, useBuildsStore } from '../../renderer/src/stores/builds.js';
import { exportKey, resultFor, useExportStore } from '../../renderer/src/stores/export.js';
import { pointProgressText, shownJob, useProfilesStore } from '../../renderer/src/stores/profiles.js';
import { sourceErrorFor, useSourcesStore } from '../../renderer/src/stores/sources.js';
import { failWith, fakeTransport, resetStores, tick } from './helpers.js';

beforeEach(resetStores);
afterEach(() => setTransport(null));

const report = (path: string) => ({
  path,
  numSamples: 4,
  skipped: [],
  pages: 1,
  pageSize: 8388608,
  fileSize: 1,
  elapsedMs: 1,
  samplesPerSec: 1,
  heapBytes: {},
  imageModes: {},
  sourceBytes: 0,
  source: { kind: 'x', path: '/src', items: 4 },
  compressionRatio: null,
  passThrough: 0,
  reportPath: null,
});

describe('export: the code shown is the code of the inputs shown', () => {
  it('a result is keyed by loader, build and format; other inputs have none until generated', async () => {
    fakeTransport({ 'export.generate': (p) => ({ text: JSON.stringify(p), language: 'json' }) });
    const loader = { file: '/a.beton', batchSize: 8 };
    await useExportStore.getState().generate(loader, null);
    const s = useExportStore.getState();
    expect(resultFor(s, exportKey(loader, null, 'python'))?.text).toContain('/a.beton');
    expect(resultFor(s, exportKey({ ...loader, batchSize: 16 }, null, 'python'))).toBeNull();
    expect(resultFor(s, exportKey(loader, null, 'json'))).toBeNull();
  });

  it('a late reply to older inputs is dropped', async () => {
    const pending: Array<() => void> = [];
    fakeTransport({
      'export.generate': (p) => new Promise((ok) => pending.push(() => ok({ text: JSON.stringify(p), language: 'python' }))),
    });
    const first = useExportStore.getState().generate({ file: '/a.beton', batchSize: 8 }, null);
    const second = useExportStore.getState().generate({ file: '/a.beton', batchSize: 16 }, null);
    pending[1]!();
    await second;
    pending[0]!();
    await first;
    expect(useExportStore.getState().result?.value.text).toContain('"batchSize":16');
  });

  it('the default batch size fits the chosen file until one is typed', async () => {
    fakeTransport({ 'datasets.inspect': () => ({ fields: [], numSamples: 48 }) });
    useExportStore.getState().setForm({ file: '/small.beton' });
    await useExportStore.getState().loadFields();
    expect(useExportStore.getState().form.batchSize).toBe('32');
    useExportStore.getState().setForm({ batchSize: '4' });
    expect(useExportStore.getState().form.batchSize).toBe('4');
  });
});

describe('builds: the build for a file, and start errors for a config', () => {
  it('buildFor is the newest ok build that wrote the path, not the last build', () => {
    const cfg = (out: string) => ({ source: { type: 'image_folder' as const, path: `/src/${out}` }, output: out });
    useBuildsStore.setState({
      order: ['b', 'a'],
      jobs: {
        a: { id: 'a', config: cfg('/a.beton'), status: 'ok', report: report('/a.beton') } as never,
        b: { id: 'b', config: cfg('/b.beton'), status: 'ok', report: report('/b.beton') } as never,
      },
    });
    expect(buildFor(useBuildsStore.getState(), '/a.beton')?.id).toBe('a');
    expect(buildFor(useBuildsStore.getState(), '/c.beton')).toBeNull();
  });

  it('a start error belongs to the config it answered', async () => {
    fakeTransport({ 'builds.start': () => failWith('OUTPUT_EXISTS', 'exists') });
    const config = { source: { type: 'image_folder' as const, path: '/d' }, output: '/d.beton' };
    await useBuildsStore.getState().start(config);
    expect(startErrorFor(useBuildsStore.getState(), config)?.code).toBe('OUTPUT_EXISTS');
    expect(startErrorFor(useBuildsStore.getState(), { ...config, output: '/e.beton' })).toBeNull();
  });
});

describe('sources: the detect error follows the path', () => {
  it('is shown for the path it answered and not once the path is edited', async () => {
    fakeTransport({ 'sources.detect': () => failWith('NOT_FOUND', 'no such folder') });
    useSourcesStore.getState().setPath('/nope');
    await useSourcesStore.getState().detect();
    expect(sourceErrorFor(useSourcesStore.getState())?.code).toBe('NOT_FOUND');
    useSourcesStore.getState().setPath('/data/images');
    expect(sourceErrorFor(useSourcesStore.getState())).toBeNull();
  });
});

describe('profiles: the job shown follows the form; progress names the point plotted', () => {
  const finishedExec = async (): Promise<void> => {
    fakeTransport({ 'profiles.start': () => ({ jobId: 'x1' }) });
    useProfilesStore.getState().setForm({ mode: 'exec', command: 'python train.py' });
    await useProfilesStore.getState().start({ exec: { command: 'python train.py', throughputRegex: null, file: null } }, []);
    useProfilesStore.getState().onFinished({ jobId: 'x1', kind: 'profile', status: 'failed', message: 'exit 1' });
  };

  it('a finished command result is not shown for a sweep of a new file', async () => {
    await finishedExec();
    expect(shownJob(useProfilesStore.getState())?.id).toBe('x1');
    useProfilesStore.getState().setForm({ mode: 'grid', file: '/new.beton' });
    expect(shownJob(useProfilesStore.getState())).toBeNull();
    useProfilesStore.getState().setForm({ mode: 'exec' });
    expect(shownJob(useProfilesStore.getState())?.id).toBe('x1');
    useProfilesStore.getState().setForm({ command: 'python other.py' });
    expect(shownJob(useProfilesStore.getState())).toBeNull();
  });

  it('"point 2 of 4" once point 2 (index 1) sends telemetry, though only 1 is done', async () => {
    fakeTransport({ 'profiles.start': () => ({ jobId: 'p1' }) });
    const grid = [1, 2, 3, 4].map((w) => ({ workers: w, batchSize: 8, order: 'random' as const, osCache: true }));
    await useProfilesStore.getState().start({ plan: { file: '/d.beton' } }, grid);
    useProfilesStore
      .getState()
      .onSample({ jobId: 'p1', sample: { t: 1, point: 0, imagesPerSec: 100, cpuPerCore: [], rssBytes: 0, diskReadBytes: 0, gpus: [] } });
    expect(pointProgressText(useProfilesStore.getState().job!)).toBe('measuring point 1 of 4 · 0 done');
    useProfilesStore
      .getState()
      .onProgress({ jobId: 'p1', kind: 'profile', done: 1, total: 4, rate: 0, etaMs: null, message: 'point 1 of 4' });
    useProfilesStore
      .getState()
      .onSample({ jobId: 'p1', sample: { t: 2, point: 1, imagesPerSec: 100, cpuPerCore: [], rssBytes: 0, diskReadBytes: 0, gpus: [] } });
    expect(pointProgressText(useProfilesStore.getState().job!)).toBe('measuring point 2 of 4 · 1 done');
  });

  it('the default batch size fits the dataset; a typed one is kept', async () => {
    fakeTransport({ 'datasets.inspect': () => ({ numSamples: 48 }) });
    useProfilesStore.getState().setForm({ file: '/small.beton' });
    await useProfilesStore.getState().checkFile();
    expect(useProfilesStore.getState().form.batchSizes).toBe('32');
    resetStores();
    fakeTransport({ 'datasets.inspect': () => ({ numSamples: 48 }) });
    useProfilesStore.getState().setForm({ file: '/small.beton', batchSizes: '16, 64' });
    await useProfilesStore.getState().checkFile();
    expect(useProfilesStore.getState().form.batchSizes).toBe('16, 64');
    expect(useProfilesStore.getState().touched.command).toBeUndefined();
  });

  it('fitBatchSize: the preferred size when the dataset holds it, else the largest power of two it holds', () => {
    expect(fitBatchSize('256', 1000)).toBe(256);
    expect(fitBatchSize('256', 48)).toBe(32);
    expect(fitBatchSize(256, 1)).toBe(1);
    expect(fitBatchSize(256, 0)).toBe(1);
  });
});

describe('build form: video clips and string labels', () => {
  const video: DetectedSource = {
    source: { type: 'video_folder', path: '/v', clipLength: 16, fps: null },
    fields: [
      { name: 'clip', type: 'video_clip', writeMode: 'jpg', jpegQuality: 90, maxResolution: null, frames: 16 },
      { name: 'label', type: 'int' },
    ],
    length: null,
  };

  it('a video source keeps the clip field (jpg) and puts clip length, stride and fps in the source', () => {
    const form = formFromDetected(video);
    expect(form.fields[0]).toMatchObject({ type: 'video_clip', writeMode: 'jpg', jpegQuality: '90' });
    expect(form.clip).toEqual({ clipLength: '16', stride: '', fps: '' });
    const r = validateBuildForm({
      ...form,
      clip: { clipLength: '8', stride: '4', fps: '10' },
      fields: [{ ...form.fields[0]!, maxResolution: '64', jpegQuality: '80' }, form.fields[1]!],
    });
    expect(r.errors).toEqual({});
    expect(r.config?.source).toEqual({ type: 'video_folder', path: '/v', clipLength: 8, stride: 4, fps: 10 });
    expect(r.config?.fields?.[0]).toEqual({
      name: 'clip',
      type: 'video_clip',
      writeMode: 'jpg',
      jpegQuality: 80,
      maxResolution: 64,
      frames: 8,
    });
    expect(validateBuildForm({ ...form, clip: { clipLength: '0', stride: 'x', fps: '-1' } }).errors).toMatchObject({
      'clip.clipLength': expect.any(String),
      'clip.stride': expect.any(String),
      'clip.fps': expect.any(String),
    });
  });

  it('a string column made int reads its categories, and the build config carries them', async () => {
    const t = fakeTransport({
      'sources.detect': () => ({ source: { type: 'table', path: '/t.csv' }, fields: [{ name: 'species', type: 'json' }], length: 3 }),
      'sources.categories': () => ({ column: 'species', categories: ['bird', 'cat'], rows: 3 }),
    });
    await useSourcesStore.getState().detect('/t.csv');
    useSourcesStore.getState().updateField(0, { type: 'int' });
    expect(useSourcesStore.getState().form!.fields[0]!.labelMap).toEqual({ state: 'loading' });
    expect(validateBuildForm(useSourcesStore.getState().form!).config).toBeNull();
    await tick();
    expect(t.calls.find((c) => c.method === 'sources.categories')?.params).toEqual({ path: '/t.csv', column: 'species' });
    const r = validateBuildForm(useSourcesStore.getState().form!);
    expect(r.config?.fields).toEqual([{ name: 'species', type: 'int', categories: ['bird', 'cat'], columns: ['species'] }]);
    // Back to JSON: the mapping goes with the int type.
    useSourcesStore.getState().updateField(0, { type: 'json' });
    expect(useSourcesStore.getState().form!.fields[0]!.labelMap).toBeNull();
  });
});

describe('inline markdown', () => {
  it('backticked text becomes code; an unpaired backtick stays', () => {
    expect(splitInlineCode('run `beton serve` now')).toEqual([
      { text: 'run ', code: false },
      { text: 'beton serve', code: true },
      { text: ' now', code: false },
    ]);
    expect(splitInlineCode('a ` b')).toEqual([{ text: 'a ` b', code: false }]);
  });
});
