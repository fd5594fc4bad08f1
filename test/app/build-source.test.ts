/**
 * A build opens its source once and resolves its output once (issue 32; core/app/build-source.ts).
 * `beton build` used to open its source three times (detection in planBuild, resolveFields
 * for --columns, the write; a fourth through the output guard for a list replaced with
 * --force), and each open of a CSV reads it through to count its rows. Both factories are
 * spied on: openSource (config → DatasetSource) and CsvTable.open (the file read through).
 */
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parseBuildConfig } from '../../core/api/build-config.js';
import { manifestPathFor } from '../../core/api/dataset-manifest.js';
import { buildDataset, guardBuild, runBuild } from '../../core/app/build.js';
import { planBuild } from '../../core/app/plan-build.js';
import { buildCommand } from '../../core/cli/build-command.js';
import { openSource } from '../../core/sources/open-source.js';
import type * as OpenSourceModuleNs from '../../core/sources/open-source.js';
import { CsvTable } from '../../core/sources/tables/csv-source.js';

type OpenSourceModule = typeof OpenSourceModuleNs;
vi.mock('../../core/sources/open-source.js', async (importOriginal) => {
  const original = await importOriginal<OpenSourceModule>();
  return { ...original, openSource: vi.fn(original.openSource) };
});

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'beton-build-source-')));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// Braces: a function beforeEach returns is run as its cleanup (mockClear returns the mock).
beforeEach(() => {
  vi.mocked(openSource).mockClear();
});
afterEach(() => {
  vi.restoreAllMocks();
});

function table(name: string): string {
  const p = join(dir, name);
  writeFileSync(p, 'a,b,c\n' + Array.from({ length: 20 }, (_, i) => `${i},${i * 0.5},${i % 3}`).join('\n') + '\n');
  return p;
}

async function imageList(name: string): Promise<string> {
  const p = join(dir, name);
  const rows: string[] = [];
  for (let i = 0; i < 3; i++) {
    const img = join(dir, `${name}-${i}.png`);
    await sharp({ create: { width: 8, height: 8, channels: 3, background: { r: 60 * i, g: 10, b: 90 } } })
      .png()
      .toFile(img);
    rows.push(`${img},${i}`);
  }
  writeFileSync(p, `path,label\n${rows.join('\n')}\n`);
  return p;
}

/** Runs `beton build` in this process (its output kept from the test's log). */
async function beton(args: string[]): Promise<{ code: number; stdout: string }> {
  let stdout = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((stdout += String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  const code = await buildCommand([...args, '--workers', '0', '--db', join(dir, 'runs.sqlite')]);
  return { code, stdout };
}

describe('a build opens its source once', () => {
  it('beton build data.csv --columns: detection, the fields and the write read one opened table', async () => {
    const src = table('data.csv');
    const out = join(dir, 'data.beton');
    const opens = vi.spyOn(CsvTable, 'open');
    const r = await beton([src, '-o', out, '--columns', 'a,c', '--json']);
    expect(r.code).toBe(0);
    expect(opens).toHaveBeenCalledTimes(1); // was 3
    expect(openSource).toHaveBeenCalledTimes(1); // was 2 (detection opened a table, not a source)
    expect(JSON.parse(r.stdout)).toMatchObject({ path: out, numSamples: 20 });
  });

  it('beton build list.csv --force over a file: the guard reads the list from the source the build then writes from', async () => {
    const src = await imageList('list.csv');
    const out = join(dir, 'list.beton');
    writeFileSync(out, 'an older build');
    const opens = vi.spyOn(CsvTable, 'open');
    const r = await beton([src, '-o', out, '--force', '--json']);
    expect(r.code).toBe(0);
    expect(opens).toHaveBeenCalledTimes(1); // was 3: detection, the guard's list check, the write
    expect(openSource).toHaveBeenCalledTimes(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ path: out, numSamples: 3, source: { kind: 'image_list' } });
  });

  it('beton build data.csv --advise: the advice encodes from the table detection opened', async () => {
    const src = table('advise.csv');
    const opens = vi.spyOn(CsvTable, 'open');
    const r = await beton([src, '--advise', '--sample', '4', '--json']);
    expect(r.code).toBe(0);
    expect(opens).toHaveBeenCalledTimes(1); // was 2: detection, the advice
    expect(openSource).toHaveBeenCalledTimes(1);
  });

  it('the library call, as the service (guardBuild, runBuild), reads a replaced list once', async () => {
    const src = await imageList('lib.csv');
    const out = join(dir, 'lib.beton');
    writeFileSync(out, 'an older build');
    const config = parseBuildConfig({ source: { type: 'image_list', path: src, imageColumn: 'path' }, output: out, numWorkers: 0 });
    if (!config.ok) throw new Error(config.errors.join('; '));
    const opens = vi.spyOn(CsvTable, 'open');
    expect((await buildDataset(config.value)).numSamples).toBe(3);
    expect(opens).toHaveBeenCalledTimes(1); // was 2: the guard's list check, the write
    expect(openSource).toHaveBeenCalledTimes(1);
  });
});

describe('the guard reads a list from the opened source', () => {
  it('a video a video list names is refused as an output, with --force (OUTPUT_IS_INPUT), the video untouched', async () => {
    const video = join(dir, 'v.avi');
    writeFileSync(video, 'not really a video');
    const list = join(dir, 'videos.csv');
    writeFileSync(list, `path,label\n${video},0\n`);
    const config = parseBuildConfig({ source: { type: 'video_list', path: list, clipLength: 2, fps: null }, output: video, numWorkers: 0 });
    if (!config.ok) throw new Error(config.errors.join('; '));
    await expect(buildDataset(config.value)).rejects.toMatchObject({
      code: 'OUTPUT_IS_INPUT',
      message: /is a video that .*videos\.csv lists/,
    });
    expect(readFileSync(video, 'utf8')).toBe('not really a video');
  });
});

describe('a build resolves its output once', () => {
  it('the guard resolves it; the write, the report and the manifest use that path, not their own resolution', async () => {
    const src = table('rel.csv');
    const plan = await planBuild({ sourcePath: src, output: 'sub/../rel.beton', baseDir: dir, config: { numWorkers: 0 } });
    const guard = await guardBuild(plan.config, dir, { source: plan.source });
    expect(guard.output).toBe(join(dir, 'rel.beton'));
    // The same file spelled another way is another config: runBuild takes the guard's resolved
    // output and does not resolve a config's output again to compare it.
    const respelled = parseBuildConfig({ ...plan.config, output: join(dir, 'rel.beton') });
    if (!respelled.ok) throw new Error(respelled.errors.join('; '));
    await expect(runBuild(respelled.value, guard)).rejects.toThrow(/not the one its output guard checked/);
    const { report } = await runBuild(plan.config, guard);
    expect(report.path).toBe(guard.output);
    expect(report.manifestPath).toBe(manifestPathFor(guard.output));
    expect(existsSync(guard.output)).toBe(true);
  });

  it("only guardBuild resolves a config's output on the build path (app/build.ts, output-guard.ts, plan-build.ts, cli/build-command.ts)", () => {
    // Before: build-command.ts (its cleanup), output-guard.ts, runBuild's check and the write each
    // resolved config.output. (The CLI making its -o flag absolute is parsing a flag, not this.)
    const files = ['core/app/build.ts', 'core/app/output-guard.ts', 'core/app/plan-build.ts', 'core/cli/build-command.ts'];
    const resolvingOutput = files.flatMap((f) =>
      (readFileSync(join(import.meta.dirname, '../..', f), 'utf8').match(/resolve\([^)]*config\.output\)/g) ?? []).map((m) => `${f}: ${m}`),
    );
    expect(resolvingOutput).toEqual(['core/app/build.ts: resolve(baseDir, config.output)']);
  });
});
