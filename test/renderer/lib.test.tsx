// @vitest-environment happy-dom
import { describe, expect, it, vi } from 'vitest';
import { ApiError, call, httpTransport, setTransport, takeToken } from '../../renderer/src/lib/api.js';
import { changeFieldType, fieldToForm, formFromDetected, validateBuildForm } from '../../renderer/src/lib/build-form.js';
import { DEFAULT_IMAGE_WRITE_MODE, DEFAULT_MAX_RESOLUTION, DEFAULT_SMART_THRESHOLD } from '../../core/api/constants.js';
import { BuildConfig } from '../../core/api/build-config.js';
import { pipelinesFor, validateExportForm, DEFAULT_EXPORT_FORM } from '../../renderer/src/lib/export-form.js';
import {
  basename,
  dirname,
  formatBytes,
  formatDuration,
  formatEta,
  formatNumber,
  formatRate,
  formatRatio,
  percent,
  shortenPath,
  suggestOutput,
} from '../../renderer/src/lib/format.js';
import { highlightJson, highlightPython } from '../../renderer/src/lib/highlight.js';
import { allowPrefixFor, isRemoteUrl, remoteUrlProblem } from '../../renderer/src/lib/remote-url.js';
import { pointsOf } from '../../core/api/profile-plan.js';
import { DEFAULT_PROFILE_FORM, parseIntList, validateProfileForm } from '../../renderer/src/lib/profile-form.js';
import { appendBounded, decimate, liveBySettings, livePointRates, overlayChart, workersChart } from '../../renderer/src/lib/series.js';
import { outcomeWithKind } from '../../renderer/src/lib/types.js';
import type { DetectedSource } from '../../core/api/contract.js';

describe('format helpers', () => {
  it('formats bytes with binary units and three significant digits', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.50 KiB');
    expect(formatBytes(8 * 1024 * 1024)).toBe('8.00 MiB');
    expect(formatBytes(123.4 * 1024 ** 3)).toBe('123 GiB');
    expect(formatBytes(null)).toBe('—');
    expect(formatBytes(Number.NaN)).toBe('—');
  });
  it('groups thousands and formats rates', () => {
    expect(formatNumber(1234567)).toBe('1,234,567');
    expect(formatNumber(-1234.5, 1)).toBe('-1,234.5');
    expect(formatRate(1234.4)).toBe('1,234 samples/s');
    expect(formatRate(2.345, 'img')).toBe('2.3 img/s');
    expect(formatRate(null)).toBe('—');
  });
  it('formats ratios without a misleading 0.00×', () => {
    expect(formatRatio(3.256)).toBe('3.26×');
    expect(formatRatio(0.0512)).toBe('0.051×');
    expect(formatRatio(0.004)).toBe('0.0040×');
    expect(formatRatio(250)).toBe('250×');
    expect(formatRatio(null)).toBe('—');
  });
  it('formats durations and ETAs for people', () => {
    expect(formatDuration(400)).toBe('0.4 s');
    expect(formatDuration(12_000)).toBe('12 s');
    expect(formatDuration(185_000)).toBe('3 min 05 s');
    expect(formatDuration(3_720_000)).toBe('1 h 02 min');
    expect(formatEta(null)).toBe('—');
    expect(formatEta(0)).toBe('done');
    expect(formatEta(500)).toBe('< 1 s');
    expect(formatEta(65_000)).toBe('1 min 05 s');
  });
  it('computes percent, clamped, null when the total is unknown', () => {
    expect(percent(5, 10)).toBe(50);
    expect(percent(12, 10)).toBe(100);
    expect(percent(3, null)).toBeNull();
    expect(percent(0, 0)).toBe(100);
  });
  it('handles paths whatever the separator', () => {
    expect(basename('/data/train/')).toBe('train');
    expect(basename('C:\\data\\x.beton')).toBe('x.beton');
    expect(dirname('/data/train')).toBe('/data');
    expect(dirname('/x')).toBe('/');
    expect(suggestOutput('/data/train/')).toBe('/data/train.beton');
    expect(suggestOutput('/data/labels.csv')).toBe('/data/labels.beton');
    expect(shortenPath('/a/very/long/path/that/goes/on/and/on/forever/file.beton', 30)).toMatch(/…\/file\.beton$/);
  });
});

describe('highlighter', () => {
  it('tokenizes Python: keywords, strings, numbers, comments, literals — and loses nothing', () => {
    const src =
      'from ffcv.loader import Loader  # the loader\nloader = Loader("a.beton", batch_size=256, os_cache=True)\ns = """multi\nline"""\n';
    const toks = highlightPython(src);
    expect(toks.map((t) => t.text).join('')).toBe(src);
    const of = (type: string): string[] => toks.filter((t) => t.type === type).map((t) => t.text);
    expect(of('keyword')).toEqual(['from', 'import']);
    expect(of('comment')).toEqual(['# the loader']);
    expect(of('string')).toEqual(['"a.beton"', '"""multi\nline"""']);
    expect(of('number')).toEqual(['256']);
    expect(of('literal')).toEqual(['True']);
    expect(of('function')).toEqual(['Loader']);
  });
  it('does not treat a # inside a string as a comment', () => {
    const toks = highlightPython("x = 'a # b'\n");
    expect(toks.some((t) => t.type === 'comment')).toBe(false);
  });
  it('tokenizes JSON keys apart from string values', () => {
    const src = '{\n  "file": "a.beton",\n  "n": -1.5e3,\n  "ok": true,\n  "x": null\n}';
    const toks = highlightJson(src);
    expect(toks.map((t) => t.text).join('')).toBe(src);
    expect(toks.filter((t) => t.type === 'key').map((t) => t.text)).toEqual(['"file"', '"n"', '"ok"', '"x"']);
    expect(toks.filter((t) => t.type === 'string').map((t) => t.text)).toEqual(['"a.beton"']);
    expect(toks.filter((t) => t.type === 'number').map((t) => t.text)).toEqual(['-1.5e3']);
    expect(toks.filter((t) => t.type === 'literal').map((t) => t.text)).toEqual(['true', 'null']);
  });
});

const detected: DetectedSource = {
  source: { type: 'image_folder', path: '/data/train' },
  fields: [
    {
      name: 'image',
      type: 'rgb_image',
      writeMode: 'raw',
      maxResolution: null,
      smartThreshold: null,
      jpegQuality: 90,
      compressProbability: 0.5,
      passThrough: false,
    },
    { name: 'label', type: 'int' },
  ],
  length: 48,
};

describe('build form', () => {
  it('turns the detected schema into a valid config with the suggested output', () => {
    const form = formFromDetected(detected);
    const r = validateBuildForm(form);
    expect(r.errors).toEqual({});
    expect(r.config).toMatchObject({ source: detected.source, output: '/data/train.beton', pageSize: 8 * 1024 * 1024, onError: 'fail' });
    expect(r.config!.fields).toHaveLength(2);
    expect(r.config!.numWorkers).toBeUndefined();
  });
  it('a seed goes into the config; a seed that is not a whole number is an inline message', () => {
    const form = formFromDetected(detected);
    expect(validateBuildForm(form).config!.seed).toBeUndefined();
    expect(validateBuildForm({ ...form, seed: '42' }).config!.seed).toBe(42);
    const bad = validateBuildForm({ ...form, seed: '1.5' });
    expect(bad.config).toBeNull();
    expect(bad.errors.seed).toMatch(/whole number/);
  });
  it('gives inline messages keyed by input, and no config', () => {
    const form = formFromDetected(detected);
    form.pageSizeMiB = '3';
    form.workers = 'many';
    form.output = '/data/out.txt';
    form.fields[0] = { ...form.fields[0]!, jpegQuality: '101', compressProbability: '2', maxResolution: '-5' };
    form.fields[1] = { ...form.fields[1]!, name: 'image' };
    const r = validateBuildForm(form);
    expect(r.config).toBeNull();
    expect(Object.keys(r.errors).sort()).toEqual([
      'fields.0.compressProbability',
      'fields.0.jpegQuality',
      'fields.0.maxResolution',
      'fields.1.name',
      'output',
      'pageSize',
      'workers',
    ]);
    expect(r.errors.pageSize).toMatch(/power of two/);
  });
  it('warns (without blocking) about options that would have no effect', () => {
    const form = formFromDetected(detected);
    form.fields[0] = { ...form.fields[0]!, passThrough: true, smartThreshold: '1000' };
    const r = validateBuildForm(form);
    expect(r.config).not.toBeNull();
    expect(Object.keys(r.warnings).sort()).toEqual(['fields.0.passThrough', 'fields.0.smartThreshold']);
  });
  // Issue 23: the app built raw, uncapped images where `beton build` and build configs store smart / 12288 / 512 px.
  it("starts an image's options from the build defaults, as the CLI and build configs do", () => {
    const defaults = {
      writeMode: DEFAULT_IMAGE_WRITE_MODE,
      maxResolution: DEFAULT_MAX_RESOLUTION,
      smartThreshold: DEFAULT_SMART_THRESHOLD,
    };
    // What a build config leaves out is what the CLI uses: these constants.
    const parsed = BuildConfig.parse({
      source: { type: 'image_folder', path: '/d' },
      output: '/d.beton',
      fields: [{ name: 'image', type: 'rgb_image' }],
    });
    expect(parsed.fields?.[0]).toMatchObject(defaults);
    // A column turned into an image gets those defaults; the config it makes says so.
    const form = formFromDetected(detected);
    form.fields[1] = changeFieldType(form.fields[1]!, 'rgb_image');
    expect(form.fields[1]).toMatchObject({ writeMode: 'smart', maxResolution: '512', smartThreshold: '12288' });
    expect(validateBuildForm(form).config!.fields![1]).toMatchObject({
      type: 'rgb_image',
      ...defaults,
    });
    // A config without the options (an older host's detection) gets them too; an explicit null stays "none".
    const older = { name: 'image', type: 'rgb_image', jpegQuality: 90, compressProbability: 0.5, passThrough: false } as Parameters<
      typeof fieldToForm
    >[0];
    expect(fieldToForm(older)).toMatchObject({ writeMode: 'smart', maxResolution: '512', smartThreshold: '12288' });
    expect(fieldToForm(detected.fields[0]!)).toMatchObject({ writeMode: 'raw', maxResolution: '', smartThreshold: '' });
    // A clip starts from the clip defaults (JPEG frames, no cap), not an image's.
    expect(changeFieldType(form.fields[1]!, 'video_clip')).toMatchObject({ writeMode: 'jpg', maxResolution: '' });
  });
  it('checks ndarray shapes', () => {
    const form = formFromDetected(detected);
    form.fields[1] = { ...form.fields[1]!, type: 'ndarray', dtype: 'float32', shape: '28, 0' };
    expect(validateBuildForm(form).errors['fields.1.shape']).toBeDefined();
    form.fields[1] = { ...form.fields[1]!, shape: '28, 28' };
    expect(validateBuildForm(form).config!.fields![1]).toEqual({ name: 'label', type: 'ndarray', dtype: 'float32', shape: [28, 28] });
  });
});

describe('profile form', () => {
  it("parses lists; the form's grid is the plan module's, in the sweep's order (workers innermost)", () => {
    expect(parseIntList('1, 2,4 2')).toEqual([1, 2, 4]);
    expect(parseIntList('1, x')).toBeNull();
    const v = validateProfileForm(
      { ...DEFAULT_PROFILE_FORM, file: '/d.beton', workers: '1, 2', batchSizes: '8', caches: [true, false], engines: ['beton', 'ffcv'] },
      { cores: 4, numSamples: null },
    );
    expect(v.grid.map((g) => `${g.engine}/${g.workers}/${g.osCache}`)).toEqual([
      'beton/1/true',
      'beton/2/true',
      'beton/1/false',
      'beton/2/false',
      'ffcv/1/true',
      'ffcv/2/true',
      'ffcv/1/false',
      'ffcv/2/false',
    ]);
    // The very grid the sweep measures: core/api/profile-plan.ts pointsOf over the plan sent.
    const plan = v.params && 'plan' in v.params ? v.params.plan : null;
    expect(v.grid).toEqual(
      pointsOf({
        workers: plan!.workers!,
        batchSizes: plan!.batchSizes!,
        orders: plan!.orders!,
        osCache: plan!.osCache!,
        engines: plan!.engines!,
      }),
    );
  });
  it('a training command swept over workers: {workers} must be in the command; the grid and params follow', () => {
    const base = { ...DEFAULT_PROFILE_FORM, mode: 'exec' as const, execWorkers: '1, 2' };
    expect(validateProfileForm({ ...base, command: 'python train.py' }, { cores: 4, numSamples: null }).errors.execWorkers).toMatch(
      /\{workers\}/,
    );
    const ok = validateProfileForm(
      { ...base, command: 'python train.py --workers {workers}', execSeconds: '20' },
      { cores: 4, numSamples: null },
    );
    expect(ok.errors).toEqual({});
    expect(ok.params).toEqual({
      exec: { command: 'python train.py --workers {workers}', throughputRegex: null, file: null, workers: [1, 2], secondsPerPoint: 20 },
    });
    expect(ok.grid.map((g) => g.workers)).toEqual([1, 2]);
  });
  it('checks batch sizes against the dataset and omits workers for the default grid', () => {
    const bad = validateProfileForm({ ...DEFAULT_PROFILE_FORM, file: '/d.beton' }, { cores: 4, numSamples: 48 });
    expect(bad.errors.batchSizes).toMatch(/48 samples/);
    const ok = validateProfileForm(
      { ...DEFAULT_PROFILE_FORM, file: '/d.beton', batchSizes: '8', secondsPerPoint: '1' },
      { cores: 4, numSamples: 48 },
    );
    expect(ok.errors).toEqual({});
    expect(ok.grid.map((g) => g.workers)).toEqual([1, 2, 4]);
    expect(ok.params).toEqual({
      plan: {
        file: '/d.beton',
        batchSizes: [8],
        orders: ['random'],
        osCache: [true],
        decoder: 'rrc:160',
        flip: true,
        secondsPerPoint: 1,
        warmupBatches: 2,
      },
    });
  });
  it('offers batches ahead (the knob the verdict may advise): empty is the loader default, else 1..64', () => {
    const base = { ...DEFAULT_PROFILE_FORM, file: '/d.beton', batchSizes: '8' };
    expect(validateProfileForm({ ...base, batchesAhead: '6' }, { cores: 4, numSamples: 48 }).params).toMatchObject({
      plan: { batchesAhead: 6 },
    });
    expect(validateProfileForm({ ...base, batchesAhead: '0' }, { cores: 4, numSamples: 48 }).errors.batchesAhead).toMatch(/1 to 64/);
    expect(validateProfileForm(base, { cores: 4, numSamples: 48 }).params).not.toHaveProperty('plan.batchesAhead');
  });
  it("a training command is not attributed to the sweep tab's file: it names its own (optional) dataset", () => {
    const form = { ...DEFAULT_PROFILE_FORM, mode: 'exec' as const, file: '/sweep/tab.beton', command: 'python train.py' };
    expect(validateProfileForm(form, { cores: 2, numSamples: null }).params).toEqual({
      exec: { command: 'python train.py', throughputRegex: null, file: null },
    });
    expect(validateProfileForm({ ...form, execFile: '/data/train.beton' }, { cores: 2, numSamples: null }).params).toMatchObject({
      exec: { file: '/data/train.beton' },
    });
  });
  it('validates the exec mode pattern', () => {
    const r = validateProfileForm(
      { ...DEFAULT_PROFILE_FORM, mode: 'exec', command: 'python train.py', throughputRegex: 'imgs=(\\d+)' },
      { cores: 2, numSamples: null },
    );
    expect(r.errors.throughputRegex).toMatch(/named group/);
  });
});

describe('export form', () => {
  const fields = [
    { name: 'image', type: 'rgb_image', ffcvClass: 'RGBImageField', typeId: 2, arguments: {}, heapBytes: 1 },
    { name: 'label', type: 'int', ffcvClass: 'IntField', typeId: 1, arguments: {}, heapBytes: 0 },
    { name: 'meta', type: 'json', ffcvClass: 'JSONField', typeId: 5, arguments: {}, heapBytes: 0 },
  ];
  it('gives each field its pipeline; images get decoder, flip, normalize, channels first', () => {
    const p = pipelinesFor(fields, { decoder: 'center', size: '224', flip: true, normalize: true });
    expect(p.image!.map((s) => ('decoder' in s ? s.decoder : s.op))).toEqual([
      'center_crop',
      'random_horizontal_flip',
      'normalize',
      'to_chw',
    ]);
    expect(p.label).toEqual([{ decoder: 'int' }]);
    expect(p.meta).toBeNull();
  });
  it('validates and builds a loader config', () => {
    const r = validateExportForm({ ...DEFAULT_EXPORT_FORM, file: '/d.beton', numWorkers: '4' }, fields);
    expect(r.loader).toMatchObject({ file: '/d.beton', batchSize: 256, numWorkers: 4, order: 'random', seed: 0 });
    expect(validateExportForm({ ...DEFAULT_EXPORT_FORM, batchSize: '0' }, null).errors).toHaveProperty('batchSize');
  });
});

describe('series', () => {
  it('throttles points by interval, forces the final one, and thins past the cap', () => {
    let s: number[] = [];
    let lastAt = 0;
    const add = (v: number, now: number, force = false): boolean => {
      const r = appendBounded(s, v, { now, lastAt, minIntervalMs: 100, max: 8, force });
      s = r.series;
      lastAt = r.lastAt;
      return r.added;
    };
    expect(add(1, 1000)).toBe(true);
    expect(add(2, 1050)).toBe(false);
    expect(add(3, 1100)).toBe(true);
    expect(add(4, 1120, true)).toBe(true);
    expect(s).toEqual([1, 3, 4]);
    for (let i = 0; i < 20; i++) add(10 + i, 2000 + i * 100);
    expect(s.length).toBeLessThanOrEqual(8);
    expect(s[0]).toBe(1);
    expect(s[s.length - 1]).toBe(29);
    expect(decimate([1, 2, 3, 4, 5, 6])).toEqual([1, 3, 5, 6]);
  });
  it('estimates live per-point rates and maps them onto the grid', () => {
    const sample = (point: number | null, ips: number | null) => ({
      t: 0,
      point,
      imagesPerSec: ips,
      cpuPerCore: [],
      rssBytes: 0,
      diskReadBytes: 0,
      gpus: [],
    });
    const live = livePointRates([sample(0, 100), sample(0, 300), sample(null, 50), sample(1, null), sample(1, 400)]);
    expect([...live]).toEqual([
      [0, 200],
      [1, 400],
    ]);
    const grid = pointsOf({ workers: [1, 2], batchSizes: [8], orders: ['random'], osCache: [true] });
    const chart = workersChart([], liveBySettings(live, grid));
    expect(chart.series).toEqual(['bs 8 · random']);
    expect(chart.rows).toEqual([
      { workers: 1, 'bs 8 · random': 200 },
      { workers: 2, 'bs 8 · random': 400 },
    ]);
  });
  it('overlays runs as best images/s per worker count', () => {
    const pt = (workers: number, ips: number) => ({
      index: 0,
      config: { workers, batchSize: 8, order: 'random' as const, osCache: true },
      images: 0,
      seconds: 1,
      imagesPerSec: ips,
      batchesPerSec: 0,
      waitP50Ms: 0,
      waitP95Ms: 0,
      cpuPerCore: [],
      gpuUtilMean: null,
    });
    const o = overlayChart([
      { id: 1, points: [pt(1, 100), pt(2, 150), pt(2, 180)] },
      { id: 2, points: [pt(1, 120)] },
    ]);
    expect(o.series).toEqual(['run 1', 'run 2']);
    expect(o.rows).toEqual([
      { workers: 1, 'run 1': 100, 'run 2': 120 },
      { workers: 2, 'run 1': 180 },
    ]);
  });
});

describe('profile outcome kind', () => {
  it('tags the wire outcome by its keys: an exec outcome has an exit code', () => {
    expect(
      outcomeWithKind({ runId: 3, verdict: { kind: 'decode-bound', summary: 's', evidence: ['e'], advice: [] }, points: [] }),
    ).toMatchObject({ kind: 'sweep', runId: 3, verdict: { kind: 'decode-bound' } });
    expect(
      outcomeWithKind({ runId: 4, exitCode: 0, signal: null, imagesTotal: 10, seconds: 1, stderrTail: [], failure: null }),
    ).toMatchObject({ kind: 'exec', exitCode: 0 });
    expect(
      outcomeWithKind({ runId: 5, exitCode: null, signal: 'SIGTERM', imagesTotal: 0, seconds: 1, stderrTail: [], failure: 'killed' }),
    ).toMatchObject({ kind: 'exec', signal: 'SIGTERM' });
  });
});

describe('api client', () => {
  it('takes the token from the URL, keeps it for the tab and strips it from the address bar', () => {
    const store = new Map<string, string>();
    const storage = { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => void store.set(k, v) };
    const replaced: string[] = [];
    const history = { replaceState: (_d: unknown, _t: string, url?: string | URL | null) => void replaced.push(String(url)) };
    expect(takeToken({ href: 'http://127.0.0.1:5780/?token=abc&x=1#/runs' }, storage, history)).toBe('abc');
    expect(replaced).toEqual(['/?x=1#/runs']);
    expect(takeToken({ href: 'http://127.0.0.1:5780/#/runs' }, storage, history)).toBe('abc');
    expect(takeToken({ href: 'http://127.0.0.1:5780/' }, null, null)).toBeNull();
  });

  it('posts JSON with the token header and unwraps envelopes into values or ApiErrors', async () => {
    const fetch = vi.fn(async (url: string, init: RequestInit) => {
      const body = JSON.parse(String(init.body)) as { path?: string };
      if (url.endsWith('/api/datasets.inspect'))
        return new Response(JSON.stringify({ ok: false, error: { code: 'FORBIDDEN', message: `${body.path} is outside` } }), {
          status: 403,
        });
      return new Response(JSON.stringify({ ok: true, value: { path: '/', parent: null, entries: [] } }), { status: 200 });
    });
    setTransport(httpTransport({ token: 't0k', fetch: fetch as unknown as typeof globalThis.fetch }));
    await expect(call('fs.browse', {})).resolves.toEqual({ path: '/', parent: null, entries: [] });
    const [url, init] = fetch.mock.calls[0]!;
    expect(url).toBe('/api/fs.browse');
    expect((init.headers as Record<string, string>)['X-Beton-Token']).toBe('t0k');
    const err = await call('datasets.inspect', { path: '/etc/passwd' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'FORBIDDEN', message: '/etc/passwd is outside' });
    setTransport(null);
  });

  it('maps transport failures to NETWORK / UNAUTHORIZED errors', async () => {
    setTransport(
      httpTransport({
        token: null,
        fetch: (async () => {
          throw new TypeError('Failed to fetch');
        }) as unknown as typeof globalThis.fetch,
      }),
    );
    await expect(call('env.info', {})).rejects.toMatchObject({ code: 'NETWORK' });
    setTransport(
      httpTransport({ token: null, fetch: (async () => new Response('no', { status: 401 })) as unknown as typeof globalThis.fetch }),
    );
    await expect(call('env.info', {})).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    setTransport(null);
  });

  it('routes server-sent events to listeners and closes the stream when the last one leaves', () => {
    const instances: FakeES[] = [];
    class FakeES {
      readyState = 0;
      onopen: (() => void) | null = null;
      onerror: (() => void) | null = null;
      handlers = new Map<string, (m: MessageEvent<string>) => void>();
      closed = false;
      constructor(readonly url: string) {
        instances.push(this);
      }
      addEventListener(name: string, h: (m: MessageEvent<string>) => void): void {
        this.handlers.set(name, h);
      }
      close(): void {
        this.closed = true;
      }
    }
    const t = httpTransport({ token: 'a b', EventSource: FakeES as unknown as typeof EventSource });
    const got: unknown[] = [];
    const states: string[] = [];
    t.onConnection!((s) => states.push(s));
    const off = t.onEvent((e) => got.push(e));
    expect(instances[0]!.url).toBe('/api/events?token=a%20b');
    instances[0]!.onopen!();
    instances[0]!.handlers.get('jobs:progress')!({
      data: JSON.stringify({ jobId: 'j', kind: 'build', done: 1, total: 2, rate: 1, etaMs: 1 }),
    } as MessageEvent<string>);
    instances[0]!.handlers.get('runs:changed')!({ data: 'not json' } as MessageEvent<string>);
    expect(got).toEqual([{ event: 'jobs:progress', data: { jobId: 'j', kind: 'build', done: 1, total: 2, rate: 1, etaMs: 1 } }]);
    off();
    expect(instances[0]!.closed).toBe(true);
    expect(states).toEqual(['closed', 'connecting', 'open', 'closed']);
  });
});

describe('profile engines in the app (issue 18)', () => {
  const pt = (engine: 'beton' | 'ffcv' | undefined, workers: number, ips: number) => ({
    index: 0,
    config: { workers, batchSize: 32, order: 'random' as const, osCache: true, ...(engine ? { engine } : {}) },
    images: 1,
    seconds: 1,
    imagesPerSec: ips,
    batchesPerSec: 1,
    waitP50Ms: 0,
    waitP95Ms: 0,
    cpuPerCore: [],
    gpuUtilMean: null,
  });

  it('the form sends engines (beton alone keeps the old plan shape), the torch source, and a grid with engines outermost', () => {
    const base = { ...DEFAULT_PROFILE_FORM, file: '/d.beton', workers: '1, 2', batchSizes: '32' };
    expect(validateProfileForm(base, { cores: 2, numSamples: 100 }).params).not.toHaveProperty('plan.engines');
    const both = validateProfileForm({ ...base, engines: ['ffcv', 'beton'] }, { cores: 2, numSamples: 100 });
    expect(both.params).toMatchObject({ plan: { engines: ['beton', 'ffcv'] } });
    expect(both.grid.map((c) => `${c.engine}${c.workers}`)).toEqual(['beton1', 'beton2', 'ffcv1', 'ffcv2']);
    const torch = validateProfileForm({ ...base, engines: ['torch'] }, { cores: 2, numSamples: 100 });
    expect(torch.errors.source).toMatch(/image folder/);
    expect(validateProfileForm({ ...base, engines: ['torch'], source: '/imgs' }, { cores: 2, numSamples: 100 }).params).toMatchObject({
      plan: { engines: ['torch'], source: '/imgs' },
    });
    expect(validateProfileForm({ ...base, engines: [] }, { cores: 2, numSamples: 100 }).errors.engines).toBeTruthy();
  });

  it('one series per engine, on the Profile chart and in the Runs overlay', () => {
    const points = [pt('beton', 1, 100), pt('beton', 2, 180), pt('ffcv', 1, 60), pt('ffcv', 2, 110)];
    const w = workersChart(points, new Map());
    expect(w.series).toEqual(['beton · bs 32 · random', 'ffcv · bs 32 · random']);
    expect(w.rows).toEqual([
      { workers: 1, 'beton · bs 32 · random': 100, 'ffcv · bs 32 · random': 60 },
      { workers: 2, 'beton · bs 32 · random': 180, 'ffcv · bs 32 · random': 110 },
    ]);
    const o = overlayChart([
      { id: 3, points },
      { id: 4, points: [pt(undefined, 1, 90)] },
    ]);
    expect(o.series).toEqual(['run 3 · beton', 'run 3 · ffcv', 'run 4']);
  });

  it('the export form carries batches ahead into the loader config', () => {
    const fields = [{ name: 'image', type: 'rgb_image' }] as Parameters<typeof validateExportForm>[1];
    const r = validateExportForm({ ...DEFAULT_EXPORT_FORM, file: '/d.beton', batchesAhead: '6' }, fields);
    expect(r.loader).toMatchObject({ batchesAhead: 6 });
    expect(validateExportForm({ ...DEFAULT_EXPORT_FORM, file: '/d.beton' }, fields).loader).not.toHaveProperty('batchesAhead');
    expect(validateExportForm({ ...DEFAULT_EXPORT_FORM, file: '/d.beton', batchesAhead: '0' }, fields).errors.batchesAhead).toBeTruthy();
  });
});

describe("remote-url (the Dataset screen's URL field)", () => {
  it('accepts s3://bucket/key, https:// and http:// URLs; says why anything else is not one', () => {
    for (const u of ['s3://b/k.beton', 'S3://b/dir/k.beton', 'https://host/x.beton', 'http://127.0.0.1:9000/x.beton']) {
      expect(isRemoteUrl(u), u).toBe(true);
      expect(remoteUrlProblem(u), u).toBeNull();
    }
    expect(isRemoteUrl('/data/x.beton')).toBe(false);
    expect(remoteUrlProblem('')).toMatch(/^Enter the URL/);
    expect(remoteUrlProblem('/data/x.beton')).toMatch(/is not a URL\. Enter the URL of a \.beton file: s3:\/\/bucket\/key/);
    expect(remoteUrlProblem('gs://b/k')).toMatch(/^gs:\/\/ URLs cannot be opened here/);
    expect(remoteUrlProblem('s3://b')).toMatch(/the key is missing/);
    expect(remoteUrlProblem('s3:///k')).toMatch(/the bucket is missing/);
    expect(remoteUrlProblem('https://')).not.toBeNull();
  });

  it('suggests the folder of a refused URL as the --allow-remote prefix', () => {
    expect(allowPrefixFor('s3://other/images.beton')).toBe('s3://other/');
    expect(allowPrefixFor('s3://b/sets/train/x.beton')).toBe('s3://b/sets/train/');
    expect(allowPrefixFor('https://host/data/x.beton')).toBe('https://host/data/');
  });
});
