/**
 * The build use cases live in core/app and every front end calls them (issue 23):
 * - a source is detected by one function: a folder of videos without a clip length is
 *   refused by the CLI (it builds at once) and proposed DEFAULT_CLIP_LENGTH by the app (its
 *   form shows the proposal), both from detectSource; a CSV with a clip length is a video
 *   list for both;
 * - a build's output guard runs once (guardBuild), before any work; runBuild takes only a
 *   guarded build;
 * - a build is recorded in the runs database the same from `beton build` and `builds.start`.
 * The CLI runs from dist/ (npm run build:ts).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseBuildConfig } from '../../core/api/build-config.js';
import { DEFAULT_CLIP_LENGTH } from '../../core/api/constants.js';
import type { ApiEvent, DetectedSource } from '../../core/api/contract.js';
import { guardBuild, runBuild } from '../../core/app/build.js';
import { detectSource } from '../../core/app/detect-source.js';
import { planBuild } from '../../core/app/plan-build.js';
import { listBuilds, openRunsDb } from '../../core/app/runs-queries.js';
import { OptionsError } from '../../core/format/errors.js';
import { BetonService } from '../../core/services/beton-service.js';
import { cli, ROOT } from '../helpers/cli.js';
import sharp from 'sharp';
import { requires } from '../helpers/requires.js';
import { writeVideoFolder } from '../helpers/videos.js';

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'beton-build-uses-')));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const hasFfmpeg = requires('ffmpeg', 'apt-get install -y ffmpeg', spawnSync('ffmpeg', ['-version']).status === 0);
const hasDist = requires('a built dist/', 'npm run build:ts', existsSync(join(ROOT, 'dist/core/cli/main.js')));

async function imageFolder(): Promise<string> {
  const root = join(dir, 'images');
  if (existsSync(root)) return root;
  for (const cls of ['cat', 'dog']) {
    mkdirSync(join(root, cls), { recursive: true });
    for (let i = 0; i < 3; i++)
      await sharp({ create: { width: 24, height: 16, channels: 3, background: { r: 40 * i, g: 90, b: 200 } } })
        .jpeg()
        .toFile(join(root, cls, `${i}.jpg`));
  }
  return root;
}

function videoFolder(): string {
  const root = join(dir, 'videos');
  return existsSync(root) ? root : writeVideoFolder(root, { a: 'red', b: 'red' });
}

describe.skipIf(!hasFfmpeg)('one detection for the CLI and the app', () => {
  it('a folder of videos without a clip length: refused where nobody sees a default, proposed where the form shows it', async () => {
    const root = videoFolder();
    await expect(detectSource({ path: root })).rejects.toBeInstanceOf(OptionsError);
    const proposed = await detectSource({ path: root, proposeClipLength: true });
    expect(proposed.proposed).toEqual({ clipLength: DEFAULT_CLIP_LENGTH });
    expect(proposed.source).toMatchObject({ type: 'video_folder', clipLength: DEFAULT_CLIP_LENGTH });

    const service = new BetonService({ roots: [dir], dbPath: join(dir, 'detect.sqlite'), host: 'server' });
    try {
      const r = await service.call('sources.detect', { path: root });
      expect(r.ok && (r.value as DetectedSource)).toEqual(JSON.parse(JSON.stringify(proposed)));
      // A clip length the client gives is used as given, and nothing is "proposed".
      const given = await service.call('sources.detect', { path: root, clipLength: 4 });
      expect(given.ok && (given.value as DetectedSource).source).toMatchObject({ clipLength: 4 });
      expect(given.ok && (given.value as DetectedSource).proposed).toBeUndefined();
    } finally {
      service.close();
    }
    if (hasDist) {
      const r = cli(['build', root, '-o', join(dir, 'v.beton')]);
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/holds videos .*--clip-length T/);
    }
  });

  it('a CSV with a clip length is a list of videos; stride without one is refused, for every caller', async () => {
    const list = join(dir, 'videos.csv');
    writeFileSync(list, `path,label\n${join(videoFolder(), 'a', 'v.avi')},0\n`);
    expect((await detectSource({ path: list, clipLength: 4 })).source).toMatchObject({ type: 'video_list', format: 'csv', clipLength: 4 });
    await expect(planBuild({ sourcePath: list, clip: { stride: 2 }, output: join(dir, 'x.beton') })).rejects.toThrow(
      /stride apply to video clips and need a clip length/,
    );
  });
});

describe('one build path: guarded once, run, recorded', () => {
  it('runBuild takes only a build its guard checked, for the same output', async () => {
    const src = await imageFolder();
    const { config } = await planBuild({ sourcePath: src, output: join(dir, 'a.beton'), config: { numWorkers: 0 } });
    const guard = await guardBuild(config, dir, { overwrite: false });
    const other = parseBuildConfig({ ...config, output: join(dir, 'b.beton') });
    expect(other.ok).toBe(true);
    await expect(runBuild(other.ok ? other.value : config, guard)).rejects.toThrow(/not the one its output guard checked/);
    await expect(runBuild(config, { ...guard })).rejects.toThrow(/not the one its output guard checked/);
    // Guarded once: a file that appears after the guard (the app's job starts later) is replaced, not refused again.
    writeFileSync(join(dir, 'a.beton'), 'meanwhile');
    const { report } = await runBuild(config, guard);
    expect(report.numSamples).toBe(6);
  });

  it('beton build and builds.start record the same build in the runs database', async () => {
    const src = await imageFolder();
    const db = join(dir, 'builds.sqlite');
    if (hasDist) {
      const r = cli(['build', src, '-o', join(dir, 'cli.beton'), '--workers', '1', '--db', db]);
      expect(r.status, r.stderr).toBe(0);
    }
    const service = new BetonService({ roots: [dir], dbPath: db, host: 'server' });
    const events: ApiEvent[] = [];
    service.on((e) => events.push(e));
    try {
      const { config } = await planBuild({ sourcePath: src, output: join(dir, 'app.beton'), config: { numWorkers: 1 } });
      const started = await service.call('builds.start', { config });
      expect(started.ok, JSON.stringify(started)).toBe(true);
      await expect.poll(() => events.some((e) => e.event === 'runs:changed'), { timeout: 60_000 }).toBe(true);
    } finally {
      service.close();
    }
    const runs = await openRunsDb(db);
    try {
      const builds = listBuilds(runs);
      const paths = builds.map((b) => b.datasetPath);
      expect(paths).toContain(join(dir, 'app.beton'));
      if (hasDist) expect(paths).toContain(join(dir, 'cli.beton'));
      const [a, b] = builds;
      if (hasDist) expect(Object.keys(a!).sort()).toEqual(Object.keys(b!).sort());
    } finally {
      runs.close();
    }
  });
});
