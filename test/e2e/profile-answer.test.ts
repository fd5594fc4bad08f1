/**
 * End to end, issue 27 (the renderer's half): the answer card with its actions as buttons (one
 * pressed prefills the form that carries it out), one colour per stage *name* with a legend and
 * the ms written on each bar whichever engine measured it, FFCV's stages after a reload, wait
 * per step for every engine with the timelines broken over a gap, a failed engine in one line,
 * a training-command sweep's chart, the comparison over matching points only, and the best
 * number the same on the Profile and Runs screens as the run's answer.best. Runs seeded into
 * the runs database (test/helpers/seeded-runs.ts) for the screens; one real sweep for the
 * Profile screen. Screenshots i27-*.png at 1440x900 and 1024x768.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ProfileAnswer } from '../../core/api/profile-answer.js';
import type { ExecPointMeasures, PointResult, ProfileRun, StageCosts, TelemetrySample } from '../../core/api/profile-model.js';
import { RunsDb } from '../../core/runs/runs-db.js';
import { seedPoint, seedSample, seedSweep } from '../helpers/seeded-runs.js';
import { needChromium, ROOT, serveApp, shot } from './e2e-helpers.js';

const MACHINE = { hostname: 'box', cpuModel: 'Test CPU @ 3 GHz', cores: 2, ramBytes: 2 ** 34, os: 'Linux 6.1', node: 'v20.19.0', gpus: [] };

const timers = (read: number, decode: number, flip: number, copy: number): StageCosts => ({
  method: 'timers',
  stages: [
    { stage: 'read', msPerImage: read },
    { stage: 'decode', msPerImage: decode },
    { stage: 'flip', msPerImage: flip },
    { stage: 'copy', msPerImage: copy },
  ],
});
// FFCV's ablation names other stages, in another order: "flip" is second here, third in ours.
const ablation = (decode: number, flip: number, chw: number): StageCosts => ({
  method: 'ablation',
  stages: [
    { stage: 'read+decode', msPerImage: decode },
    { stage: 'flip', msPerImage: flip },
    { stage: 'to CHW', msPerImage: chw },
  ],
});

const point = (index: number, engine: 'beton' | 'ffcv', workers: number, ips: number, stages: StageCosts): PointResult => ({
  ...seedPoint(index, workers, ips),
  config: { workers, batchSize: 64, order: 'random', osCache: true, engine },
  slices: [ips * 0.98, ips, ips * 1.02],
  stages,
});

/** Ours measured for 4 s, then 30 s where nothing was measured (FFCV starting), then FFCV's points (no per-reading wait). */
function engineSamples(): TelemetrySample[] {
  const out: TelemetrySample[] = [];
  const rates = [600, 1100, 400, 700];
  rates.forEach((ips, p) => {
    const t0 = p < 2 ? p * 2000 : 34_000 + (p - 2) * 2000;
    for (let k = 0; k < 8; k++)
      out.push(seedSample(t0 + k * 250, p, ips * (0.97 + 0.02 * (k % 3)), p < 2 ? {} : { waitMsPerStep: null, processCpu: 0.6 }));
  });
  return out;
}

const ENGINES_ANSWER: ProfileAnswer = {
  engine: 'ffcv',
  best: { point: 3, images_per_sec: 700 },
  bottleneck: 'decode',
  contended: false,
  noise: 0.04,
  summary: 'FFCV delivers 700 img/s at 2 workers; decoding takes 3.1 ms of its 3.5 ms per image.',
  evidence: ['read+decode 3.1 ms of 3.5 ms per image at 2 workers (FFCV, by ablation)', 'both workers busy 96% of the time'],
  actions: [
    {
      id: 'resweep',
      label: 'Sweep 2 and 4 workers at batch 128',
      params: { workers: [2, 4], batchSizes: [128], engines: ['beton', 'ffcv'] },
    },
    {
      id: 'switch-engine',
      label: "Train with our loader: FFCV's best is 700 img/s; ours does 1,100 with the same settings",
      params: { engine: 'beton' },
    },
    { id: 'rebuild', label: 'Rebuild with raw pixels, at most 256 px', params: { writeMode: 'raw', maxResolution: 256 } },
    { id: 'export', label: 'Export FFCV code for this point (2 workers, batch 64)', params: { point: 3 } },
  ],
  engines: {
    beton: { best_images_per_sec: 1100, vs_trained_with: 1.57 },
    ffcv: { best_images_per_sec: 700, vs_trained_with: 1 },
    torch: { best_images_per_sec: null, vs_trained_with: null },
  },
};

function enginesRun(): ProfileRun {
  const base = seedSweep({
    startedAt: '2026-11-01T10:00:00.000Z',
    workers: [1, 2],
    rates: [600, 1100],
    samples: [],
    machine: MACHINE,
    verdict: null,
  });
  return {
    ...base,
    plan: { ...base.plan, engines: ['beton', 'ffcv', 'torch'], source: '/data/images', stages: true },
    points: [
      point(0, 'beton', 1, 600, timers(0.3, 2.4, 0.2, 0.1)),
      point(1, 'beton', 2, 1100, timers(0.3, 2.3, 0.2, 0.1)),
      point(2, 'ffcv', 1, 400, ablation(2.9, 0.3, 0.2)),
      point(3, 'ffcv', 2, 700, ablation(3.1, 0.25, 0.15)),
    ],
    samples: engineSamples(),
    verdict: { kind: 'decode-bound', summary: 'decode-bound', evidence: [], advice: [] },
    answer: ENGINES_ANSWER,
    engineFailures: [
      {
        engine: 'torch',
        message: 'the torch engine failed: OSError: image file is truncated (3 bytes not processed)',
        detail:
          'Traceback (most recent call last):\n  File "driver.py", line 120, in measure\n    batch = next(it)\nOSError: image file is truncated (3 bytes not processed)',
        measured: 0,
      },
    ],
  };
}

const execPoint = (index: number, workers: number, ips: number, gpu: number, waitShare: number): PointResult => {
  const exec: ExecPointMeasures = {
    command: `python train.py --workers ${workers}`,
    exitCode: null,
    signal: 'SIGTERM',
    timedOut: true,
    failure: null,
    imagesPerSec: ips,
    steps: 200,
    stepsPerSec: ips / 256,
    waitShare,
    waitMeanMs: waitShare * 400,
    stepMeanMs: 400,
    waitP50Ms: waitShare * 400,
    waitP95Ms: waitShare * 500,
    stepP50Ms: 400,
    series: [],
  };
  return { ...seedPoint(index, workers, ips), config: { workers, batchSize: 256, order: 'random', osCache: true }, gpuUtilMean: gpu, exec };
};

function execSweepRun(): ProfileRun {
  return {
    kind: 'exec',
    startedAt: '2026-11-02T10:00:00.000Z',
    finishedAt: '2026-11-02T10:01:00.000Z',
    status: 'ok',
    plan: { command: 'python train.py --workers {workers}', throughputRegex: null, file: null, workers: [1, 2, 4], secondsPerPoint: 20 },
    machine: MACHINE,
    dataset: null,
    points: [execPoint(0, 1, 300, 35, 0.52), execPoint(1, 2, 560, 71, 0.09), execPoint(2, 4, 610, 78, 0.03)],
    samples: [],
    verdict: null,
    answer: {
      engine: 'exec',
      best: { point: 2, images_per_sec: 610 },
      bottleneck: 'balanced',
      contended: false,
      noise: 0.05,
      summary: '4 workers keep the GPU fed: the step waits 3% of its time for data; 2 workers wait 9%.',
      evidence: ['1 worker: waits 52% of each step, GPU 35%', '4 workers: waits 3%, GPU 78%'],
      actions: [{ id: 'exec-sweep', label: 'Sweep 4, 6 and 8 workers', params: { workers: [4, 6, 8] } }],
      engines: {},
    },
  };
}

/** The walk's comparison: A's best at batch 256, B's at batch 512; 3 of the 4 matching points faster in B. */
function compareRun(startedAt: string, rates: number[], extra?: number): ProfileRun {
  const base = seedSweep({ startedAt, workers: [1, 2, 4, 8], rates, samples: [], machine: MACHINE, verdict: null });
  const pts = base.points.map((p) => ({
    ...p,
    config: { ...p.config, batchSize: 256 },
    slices: [p.imagesPerSec * 0.99, p.imagesPerSec, p.imagesPerSec * 1.01],
  }));
  if (extra)
    pts.push({ ...seedPoint(4, 4, extra), config: { workers: 4, batchSize: 512, order: 'random', osCache: true }, slices: [extra, extra] });
  return { ...base, plan: { ...base.plan, batchSizes: extra ? [256, 512] : [256] }, points: pts };
}

/** A screenshot of one part of the page (the full-page ones are tall): test-output/screenshots/NAME.png. */
const shotOf = (l: Locator, name: string): Promise<Buffer> =>
  l.screenshot({ path: join(ROOT, 'test-output', 'screenshots', `${name}.png`) });

const ids: Record<'engines' | 'exec' | 'a' | 'b', number> = { engines: 0, exec: 0, a: 0, b: 0 };

/** A page script: this tsconfig has no DOM types. */
const colorsOf = (page: Page, selector: string): Promise<Array<[string, string]>> =>
  page.evaluate(
    `[...document.querySelectorAll(${JSON.stringify(selector)})].map((e) => [e.getAttribute('data-stage'), getComputedStyle(e.tagName === 'I' ? e : e).backgroundColor])`,
  );

describe.skipIf(!needChromium())('the answer, its actions and charts that cannot mislead (issue 27), end to end', () => {
  const app = serveApp({
    prefix: 'beton-e2e-answer-',
    images: true,
    args: ['--allow-exec'],
    // The seeded runs name /data/train.beton, outside the served folder: the Profile form's look at it is refused (403), as it should be.
    expected: (m) => m.text().includes('403') && m.location().url.endsWith('/api/datasets.inspect'),
    prepare: (dir) => {
      // A training script with the probe: with 1 worker each batch arrives 40 ms late, with 2 none is (the loader keeps up).
      writeFileSync(
        join(dir, 'train.py'),
        [
          'import sys, time',
          `sys.path.insert(0, ${JSON.stringify(join(ROOT, 'python'))})`,
          'from beton_probe import watch',
          'w = int(sys.argv[1])',
          'def batches():',
          '    for _ in range(40):',
          '        if w == 1:',
          '            time.sleep(0.04)',
          '        yield [0] * 16',
          'for b in watch(batches(), batch_size=16):',
          '    time.sleep(0.025)',
          '',
        ].join('\n'),
      );
      execFileSync(process.execPath, [join(ROOT, 'bin/beton.js'), 'build', join(dir, 'images'), '-o', join(dir, 'images.beton')], {
        stdio: 'pipe',
      });
      const db = RunsDb.open(join(dir, 'runs.sqlite'));
      ids.a = db.saveRun(compareRun('2026-10-01T10:00:00.000Z', [400, 700, 1130, 1000]));
      ids.b = db.saveRun(compareRun('2026-10-02T10:00:00.000Z', [480, 820, 1000, 1150], 1290));
      ids.engines = db.saveRun(enginesRun());
      ids.exec = db.saveRun(execSweepRun());
      db.close();
    },
  });
  const { problems } = app;
  let page: Page;
  beforeAll(async () => {
    ({ page } = app);
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  const openRun = async (id: number): Promise<void> => {
    await page.getByTestId('nav-runs').click();
    await page.getByTestId(`run-open-${id}`).waitFor();
    if ((await page.getByTestId(`run-open-${id}`).getAttribute('aria-pressed')) !== 'true')
      await page.getByTestId(`run-open-${id}`).click();
    await page.locator(`[data-testid=run-detail][data-id="${id}"]`).waitFor();
  };

  it("Runs: the answer card shows the run's answer (best, noise, engines, evidence) and its actions as buttons; the table marks answer.best", async () => {
    await openRun(ids.engines);
    const card = page.getByTestId('run-answer');
    expect(await card.getAttribute('data-bottleneck')).toBe('decode');
    const best = card.getByTestId('answer-best');
    expect(await best.getAttribute('data-value')).toBe('700');
    expect(await best.textContent()).toContain('700 img/s');
    expect(await best.textContent()).toContain('ffcv · 2 workers · batch 64');
    expect(await card.getByTestId('answer-noise').textContent()).toContain('±4%');
    expect(await card.getByTestId('answer-evidence').locator('li').count()).toBe(2);
    expect(await card.getByTestId('answer-engines').locator('tbody tr').count()).toBe(3);
    expect(await card.getByTestId('answer-engines').locator('tr[data-engine=torch] td').first().textContent()).toBe('not measured');
    const buttons = card.getByTestId('answer-actions').locator('button');
    expect(await buttons.allTextContents()).toEqual(ENGINES_ANSWER.actions.map((a) => a.label));
    // The Runs list's best is the answer's too.
    expect(await page.locator(`[data-testid=run-row][data-id="${ids.engines}"] td.num`).nth(1).textContent()).toBe('700');
    // The table's mark is answer.best (FFCV's 700), not the fastest row (ours, 1,100).
    const marked = page.getByTestId('run-points').locator('tr.is-best');
    expect(await marked.count()).toBe(1);
    expect(await marked.locator('th').textContent()).toContain('ffcv · 2 workers · batch 64');
    // A failed engine: one line, its traceback behind a disclosure.
    const failure = page.getByTestId('engine-failure-torch');
    expect(await failure.locator('summary').textContent()).toMatch(
      /^torch failed: the torch engine failed: OSError: image file is truncated/,
    );
    expect(await failure.getByTestId('engine-failure-detail').isVisible()).toBe(false);
    await failure.locator('summary').click();
    expect(await failure.getByTestId('engine-failure-detail').textContent()).toContain('Traceback');
    await shotOf(card, 'i27-runs-answer-card');
    await page.getByTestId('run-detail').scrollIntoViewIfNeeded();
    await shot(page, 'i27-runs-answer-1440');
    await page.setViewportSize({ width: 1024, height: 768 });
    await shot(page, 'i27-runs-answer-1024');
    await page.setViewportSize({ width: 1440, height: 900 });
    expect(problems).toEqual([]);
  });

  it('stages: one colour per stage name in every row and engine, a legend, the ms written on each bar; FFCV stages after a reload', async () => {
    await openRun(ids.engines);
    const check = async (): Promise<void> => {
      const bars = page.getByTestId('run-points').getByTestId('stage-bar');
      expect(await bars.count()).toBe(4);
      expect(await bars.evaluateAll((els) => els.map((e) => e.getAttribute('data-method')))).toEqual([
        'timers',
        'timers',
        'ablation',
        'ablation',
      ]);
      const segs = await colorsOf(page, '[data-testid=run-points] .stage-seg');
      const legend = await colorsOf(page, '[data-testid=run-detail] [data-testid=stage-legend] .stage-key i');
      // The legend's keys carry the name on their parent.
      const names = await page
        .locator('[data-testid=run-detail] [data-testid=stage-legend] .stage-key')
        .evaluateAll((els) => els.map((e) => e.getAttribute('data-stage')));
      expect(names).toEqual(['read', 'decode', 'flip', 'copy', 'read+decode', 'to CHW']);
      const legendColour = new Map(names.map((n, i) => [n!, legend[i]![1]]));
      expect(new Set(legendColour.values()).size).toBe(names.length);
      for (const [stage, colour] of segs) expect(colour, `${stage}`).toBe(legendColour.get(stage));
      // "flip" is 3rd in ours, 2nd in FFCV's: the same colour in both.
      expect(new Set(segs.filter(([s]) => s === 'flip').map(([, c]) => c)).size).toBe(1);
      // The numbers: each bar's total, and the big segments' own ms.
      expect(await page.getByTestId('run-points').getByTestId('stage-total').allTextContents()).toEqual([
        '3.0 ms',
        '2.9 ms',
        '3.4 ms',
        '3.5 ms',
      ]);
      expect(await page.locator('[data-testid=run-points] .stage-seg[data-stage="read+decode"]').last().textContent()).toBe('3.1');
    };
    await check();
    await page.getByTestId('run-points').scrollIntoViewIfNeeded();
    await shotOf(page.getByTestId('run-points').locator('xpath=..'), 'i27-stage-legend');
    // A reload reads the run back from the database: FFCV's stages are still there.
    await page.reload();
    await page.locator('[data-testid=connection][data-state=open]').waitFor();
    await page.locator(`[data-testid=run-detail][data-id="${ids.engines}"]`).waitFor();
    await check();
    await page.getByTestId('run-points').scrollIntoViewIfNeeded();
    await shotOf(page.getByTestId('run-points').locator('xpath=..'), 'i27-ffcv-stages-after-reload');
    expect(problems).toEqual([]);
  });

  it("timelines: wait per step for every engine (each point's median, dashed), no line across the 30 s where nothing was measured", async () => {
    await openRun(ids.engines);
    const wait = page.getByTestId('run-detail').getByTestId('chart-wait');
    expect((await wait.locator('.recharts-legend-item-text').allTextContents()).sort()).toEqual([
      'point median (every engine)',
      'readings (our loader)',
    ]);
    // The dashed median line has a segment over FFCV's stretch too (after the gap): two runs of the line, split at the gap.
    const paths = await wait
      .locator('.recharts-line-curve')
      .evaluateAll((els) => els.map((e) => (e.getAttribute('d') ?? '').split('M').length - 1));
    expect(paths.length).toBe(2);
    expect(paths[0]).toBe(1); // our readings: one stretch (FFCV has none)
    expect(paths[1]).toBeGreaterThanOrEqual(2); // medians: ours, then FFCV's after the gap
    const ips = page.getByTestId('run-detail').getByTestId('chart-timeline').locator('.recharts-line-curve');
    expect(await ips.evaluate((e) => (e.getAttribute('d') ?? '').split('M').length - 1)).toBe(2);
    await wait.scrollIntoViewIfNeeded();
    await shotOf(page.getByTestId('run-detail').getByTestId('profile-charts'), 'i27-timelines-gap');
    expect(problems).toEqual([]);
  });

  it('pressing an action prefills its form: resweep → the sweep fields, switch-engine → the engine selector, rebuild → the Build form, export → the Export screen', async () => {
    await openRun(ids.engines);
    await page.getByTestId('run-answer').getByTestId('action-resweep').click();
    await page.getByTestId('screen-profile').waitFor();
    expect(await page.getByTestId('profile-workers').inputValue()).toBe('2, 4');
    expect(await page.getByTestId('profile-batch').inputValue()).toBe('128');
    expect(await page.getByTestId('profile-file').inputValue()).toBe('/data/train.beton');
    expect(await page.getByTestId('engine-ffcv').isChecked()).toBe(true);
    expect(await page.getByTestId('profile-prefill').textContent()).toContain('Sweep 2 and 4 workers at batch 128');
    await shot(page, 'i27-action-resweep-prefilled');

    await openRun(ids.engines);
    await page.getByTestId('run-answer').getByTestId('action-switch-engine').click();
    await page.getByTestId('screen-profile').waitFor();
    expect(await page.getByTestId('profile-train-with').inputValue()).toBe('beton');

    // Rebuild: the Build form (on the Sources screen) of the source open there, its image field set as the action says.
    await page.getByTestId('nav-sources').click();
    await page.getByTestId('source-path').fill(join(app.tmp, 'images'));
    await page.getByTestId('detect-button').click();
    await page.getByTestId('schema-table').waitFor();
    await openRun(ids.engines);
    await page.getByTestId('run-answer').getByTestId('action-rebuild').click();
    await page.getByTestId('schema-table').waitFor();
    const image = await page
      .locator('[data-testid^=field-row-]')
      .evaluateAll((rows) => rows.findIndex((r) => r.querySelector('[data-testid$=-writeMode]') !== null));
    expect(await page.getByTestId(`field-${image}-writeMode`).inputValue()).toBe('raw');
    expect(await page.getByTestId(`field-${image}-maxResolution`).inputValue()).toBe('256');

    await openRun(ids.engines);
    await page.getByTestId('run-answer').getByTestId('action-export').click();
    await page.getByTestId('screen-export').waitFor();
    expect(await page.getByTestId('export-workers').inputValue()).toBe('2');
    expect(await page.getByTestId('export-batch').inputValue()).toBe('64');
    expect(problems).toEqual([]);
  });

  it("a training-command sweep: throughput and GPU utilisation versus workers, each point's wait share", async () => {
    await openRun(ids.exec);
    const sweep = page.getByTestId('exec-sweep');
    expect(await sweep.getByTestId('exec-sweep-throughput').getAttribute('data-count')).toBe('3');
    expect(await sweep.getByTestId('exec-sweep-gpu').getAttribute('data-count')).toBe('3');
    expect(await sweep.getByTestId('exec-sweep-wait').allTextContents()).toEqual(['52%', '9%', '3% · keeps up']);
    expect(await sweep.locator('tr.is-best th').textContent()).toContain('4');
    expect(await page.getByTestId('run-answer').getByTestId('answer-best').getAttribute('data-value')).toBe('610');
    await sweep.scrollIntoViewIfNeeded();
    await shotOf(sweep, 'i27-exec-sweep-chart');
    await page.setViewportSize({ width: 1024, height: 768 });
    await shot(page, 'i27-exec-sweep-chart-1024');
    await page.setViewportSize({ width: 1440, height: 900 });
    expect(problems).toEqual([]);
  });

  it('Runs compare: only matching settings, the noise stated, no colour for bests at other batch sizes', async () => {
    await page.getByTestId('nav-runs').click();
    if (await page.getByTestId('run-detail-close').count()) await page.getByTestId('run-detail-close').click();
    await page.getByTestId(`run-select-${ids.a}`).check();
    await page.getByTestId(`run-select-${ids.b}`).check();
    const table = page.getByTestId('compare-table');
    await table.waitFor();
    const headline = table.getByTestId('compare-headline');
    expect(await headline.textContent()).toMatch(
      /^Of 4 matching points, B is faster at 3 \(1\.15–1\.20×\), slower at 1 \(1\.13×\); noise ±5%\.$/,
    );
    expect(await headline.getAttribute('data-direction')).toBe('none');
    const best = table.getByTestId('compare-best');
    expect(await best.getAttribute('data-direction')).toBe('none');
    expect(await best.textContent()).toContain('not compared: the best points were measured with different settings');
    expect(await best.getAttribute('class')).not.toMatch(/\bbad\b/);
    await table.scrollIntoViewIfNeeded();
    await shotOf(table, 'i27-compare-matching');
    await page.getByTestId(`run-select-${ids.a}`).uncheck();
    await page.getByTestId(`run-select-${ids.b}`).uncheck();
    expect(problems).toEqual([]);
  });

  it("Profile: a real sweep's status line, answer card and table mark all say the run's answer.best, and Runs says the same", async () => {
    await page.getByTestId('nav-profile').click();
    await page.getByTestId('mode-grid').click();
    await page.getByTestId('profile-file').fill(join(app.tmp, 'images.beton'));
    await page.getByTestId('profile-workers').fill('1, 2');
    await page.getByTestId('profile-batch').fill('4');
    await page.getByTestId('profile-seconds').fill('1');
    await page.getByTestId('profile-warmup').fill('1');
    await page.getByTestId('profile-start').click();
    const card = page.getByTestId('verdict').getByTestId('answer');
    await card.waitFor({ timeout: 180_000 });
    const runId = Number((await page.getByTestId('view-run').textContent())!.replace(/\D+/g, ''));
    const db = RunsDb.open(app.db);
    const stored = db.getRun(runId)!;
    db.close();
    const answer = stored.answer!;
    expect(answer.best.images_per_sec).toBeGreaterThan(0);
    const shown = Number(await card.getByTestId('answer-best').getAttribute('data-value'));
    expect(shown).toBe(answer.best.images_per_sec);
    const formatted = Math.round(answer.best.images_per_sec!).toLocaleString('en-US');
    expect(await page.getByTestId('profile-rate').textContent()).toContain(`best ${formatted} img/s`);
    expect(await card.getByTestId('answer-best').textContent()).toContain(`${formatted} img/s`);
    const bestPoint = stored.points.find((p) => p.index === answer.best.point)!;
    expect(await page.getByTestId('points-table').locator('tr.is-best th').textContent()).toContain(`${bestPoint.config.workers} worker`);
    await shot(page, 'i27-profile-answer');
    await shotOf(page.getByTestId('verdict'), 'i27-profile-answer-card');
    await page.getByTestId('view-run').click();
    await openRun(runId);
    expect(Number(await page.getByTestId('run-answer').getByTestId('answer-best').getAttribute('data-value'))).toBe(
      answer.best.images_per_sec,
    );
    expect(await page.getByTestId('run-points').locator('tr.is-best th').textContent()).toContain(`${bestPoint.config.workers} worker`);
    expect(problems).toEqual([]);
  });

  it('a training command swept over workers from the Profile screen: its chart, and "train with 2 workers" prefills the command', async () => {
    await page.getByTestId('nav-profile').click();
    await page.getByTestId('mode-exec').click();
    await page.getByTestId('profile-command').fill(`python3 ${join(app.tmp, 'train.py')}`);
    await page.getByTestId('profile-exec-workers').fill('1, 2');
    // No {workers} in the command: the grid has nowhere to go, said at the field.
    expect(await page.getByTestId('profile-start').isDisabled()).toBe(true);
    await page.getByTestId('profile-command').fill(`python3 ${join(app.tmp, 'train.py')} {workers}`);
    await page.getByTestId('profile-exec-seconds').fill('30');
    await page.getByTestId('profile-start').click();
    const sweep = page.getByTestId('exec-sweep');
    await sweep.waitFor({ timeout: 120_000 });
    expect(await sweep.getByTestId('exec-sweep-point').count()).toBe(2);
    expect(await sweep.getByTestId('exec-sweep-throughput').getAttribute('data-count')).toBe('2');
    const waits = await sweep.getByTestId('exec-sweep-wait').allTextContents();
    expect(waits[1]).toContain('keeps up');
    await shotOf(page.getByTestId('exec-sweep-card'), 'i27-exec-sweep-live');
    const run = page.getByTestId('exec-sweep-card').getByTestId('action-run-command');
    await run.click();
    expect(await page.getByTestId('profile-command').inputValue()).toBe(`python3 ${join(app.tmp, 'train.py')} 2`);
    expect(await page.getByTestId('profile-exec-workers').inputValue()).toBe('');
    expect(problems).toEqual([]);
  }, 180_000);
});
