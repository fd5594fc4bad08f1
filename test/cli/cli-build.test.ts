// `beton build` from the command line: flags, configs, slices, seeds, policies. One build
// runs as a real process (bin/beton.js: exit code, the JSON report on stdout, plain progress
// lines on stderr); the variants call the same main() in this process, with no encode
// workers where the workers are not the point (a Node start and a tsx worker per build made
// this file take 40 s).
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, cliIn } from '../helpers/cli.js';
import { cliInProcess } from '../helpers/cli-in-process.js';
import { smallImageFolder } from '../helpers/small-images.js';

const ROOT = resolve(__dirname, '../..');
const SAMPLE = join(ROOT, 'assets/sample-images');
const dir = mkdtempSync(join(tmpdir(), 'beton-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cli = cliIn(dir);
/** 8 images (2 classes × 4, JPEG and PNG) where the bundled 48 are not the point. */
const SMALL = smallImageFolder(join(dir, 'small'), 4);

/** `beton ARGS` in this process; exit code 0 expected unless `code` says otherwise. */
async function run(args: string[], code = 0): Promise<{ out: string; err: string }> {
  const r = await cliInProcess(...args);
  expect(r.code, `beton ${args.join(' ')}\n${r.err}`).toBe(code);
  return r;
}

describe('beton build (CLI)', () => {
  it('builds an image folder with flags, and inspect --json describes it', async () => {
    const out = join(dir, 'a.beton');
    const b = cli(
      'build',
      SMALL,
      '-o',
      out,
      '--write-mode',
      'smart',
      '--smart-threshold',
      '30000',
      '--max-resolution',
      '128',
      '--workers',
      '2',
      '--json',
    );
    expect(b.status, b.stderr).toBe(0);
    const report = JSON.parse(b.stdout) as { numSamples: number; imageModes: { image: { raw: number; jpg: number } } };
    expect(report.numSamples).toBe(8);
    expect(report.imageModes.image.raw + report.imageModes.image.jpg).toBe(8);
    expect(report.imageModes.image.raw).toBeGreaterThan(0);
    expect(report.imageModes.image.jpg).toBeGreaterThan(0);
    const i = await run(['inspect', out, '--json']);
    const s = JSON.parse(i.out) as { numSamples: number; fields: Array<{ name: string; typeId: number; imageModes?: { jpg: number } }> };
    expect(s.numSamples).toBe(8);
    expect(s.fields.map((f) => [f.name, f.typeId])).toEqual([
      ['image', 2],
      ['label', 1],
    ]);
    expect(s.fields[0]!.imageModes!.jpg).toBe(report.imageModes.image.jpg);
    // Plain (non-TTY) progress lines go to stderr.
    expect(b.stderr).toMatch(/build: 8\/8/);
  });

  it('builds from a config file; flags override it', async () => {
    const cfg = join(dir, 'build.json');
    writeFileSync(
      cfg,
      JSON.stringify({
        source: { type: 'image_folder', path: SMALL },
        output: 'from-config.beton',
        image: { writeMode: 'jpg', jpegQuality: 80 },
        numWorkers: 1,
      }),
    );
    // The flags override the config: no encode worker to start, smaller images.
    const b = await run(['build', '--config', cfg, '--json', '--workers', '0', '--max-resolution', '32']);
    expect(existsSync(join(dir, 'from-config.beton'))).toBe(true);
    expect((JSON.parse(b.out) as { imageModes: { image: { jpg: number } } }).imageModes.image.jpg).toBe(8);
  });

  it('an invalid config exits 2 and names the bad key', async () => {
    const cfg = join(dir, 'bad.json');
    writeFileSync(
      cfg,
      JSON.stringify({ source: { type: 'image_folder', path: SAMPLE }, output: 'x.beton', image: { writeMode: 'webp' }, pageSize: 1000 }),
    );
    const b = await run(['build', '--config', cfg], 2);
    expect(b.err).toContain('image.writeMode');
    expect(b.err).toContain('pageSize');
  });

  it('a corrupt source image fails with its path, exit 1, and leaves no output', async () => {
    const src = join(dir, 'broken');
    rmSync(src, { recursive: true, force: true });
    for (const cls of ['a', 'b']) {
      const d = join(src, cls);
      mkdirSync(d, { recursive: true });
      cpSync(join(SAMPLE, 'circles/circles_00.jpg'), join(d, 'ok.jpg'));
    }
    writeFileSync(join(src, 'b', 'zz-broken.jpg'), Buffer.from('this is not a jpeg'));
    const out = join(dir, 'broken.beton');
    const b = await run(['build', src, '-o', out, '--workers', '0'], 1);
    expect(b.err).toContain('zz-broken.jpg');
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });
});

describe('beton build: sources, slices and policies', () => {
  it('--schema-only prints an editable config that --config accepts', async () => {
    const b = await run(['build', SAMPLE, '--schema-only', '--write-mode', 'jpg']);
    const cfg = JSON.parse(b.out) as { source: { type: string }; fields: Array<{ name: string; type: string; writeMode?: string }> };
    expect(cfg.source.type).toBe('image_folder');
    expect(cfg.fields.map((f) => [f.name, f.type])).toEqual([
      ['image', 'rgb_image'],
      ['label', 'int'],
    ]);
    expect(cfg.fields[0]!.writeMode).toBe('jpg');
    const file = join(dir, 'schema.json');
    writeFileSync(file, JSON.stringify({ ...cfg, output: join(dir, 'from-schema.beton') }));
    const c = await run(['build', '--config', file, '--workers', '0', '--max-resolution', '16']);
    expect(c.out).toContain('48 samples written, 0 skipped');
  });

  it('--seed sets the per-sample draws: proportion builds with the same seed are the same file, another seed another', async () => {
    const hash = (f: string): string => createHash('sha256').update(readFileSync(f)).digest('hex');
    const build = async (name: string, seed: string): Promise<string> => {
      const out = join(dir, name);
      await run(['build', SMALL, '-o', out, '--write-mode', 'proportion', '--seed', seed, '--workers', '0', '--max-resolution', '32']);
      return hash(out);
    };
    const seven = await build('seed7a.beton', '7');
    expect(await build('seed7b.beton', '7')).toBe(seven);
    expect(await build('seed8.beton', '8')).not.toBe(seven);
    expect((await run(['build', SAMPLE, '--schema-only', '--seed', '9'])).out).toMatch(/"seed": 9/);
  });

  it('shards k/N are contiguous and concatenate to the whole dataset; --range slices', async () => {
    const labels: string[] = [];
    const dump = async (f: string): Promise<string[]> =>
      (JSON.parse((await run(['dump', f])).out) as { samples: Array<{ label: string }> }).samples.map((s) => s.label);
    for (let k = 0; k < 3; k++) {
      const out = join(dir, `shard-${k}.beton`);
      await run(['build', SMALL, '-o', out, '--shard', `${k}/3`, '--workers', '0', '--max-resolution', '16']);
      labels.push(...(await dump(out)));
    }
    const full = join(dir, 'full.beton');
    await run(['build', SMALL, '-o', full, '--workers', '0', '--max-resolution', '16']);
    const all = await dump(full);
    expect(all).toHaveLength(8);
    expect(new Set(all).size).toBe(2);
    expect(labels).toEqual(all);
    const r = await run([
      'build',
      SAMPLE,
      '-o',
      join(dir, 'range.beton'),
      '--range',
      '10:-30',
      '--json',
      '--workers',
      '0',
      '--max-resolution',
      '16',
    ]);
    expect((JSON.parse(r.out) as { numSamples: number }).numSamples).toBe(8);
    await run(['build', SAMPLE, '-o', join(dir, 'x.beton'), '--shard', '3/3'], 2);
  });

  it('--on-error skip writes the good samples and lists exactly the bad files', async () => {
    const src = join(dir, 'skipsrc');
    for (const cls of ['a', 'b']) {
      mkdirSync(join(src, cls), { recursive: true });
      cpSync(join(SAMPLE, 'circles/circles_00.jpg'), join(src, cls, 'ok1.jpg'));
      cpSync(join(SAMPLE, 'stripes/stripes_03.png'), join(src, cls, 'ok2.png'));
    }
    writeFileSync(join(src, 'a', 'bad.jpg'), Buffer.from('not an image'));
    writeFileSync(join(src, 'b', 'empty.png'), Buffer.alloc(0));
    const out = join(dir, 'skip.beton');
    const b = await run(['build', src, '-o', out, '--on-error', 'skip', '--json', '--workers', '0']);
    const report = JSON.parse(b.out) as { numSamples: number; skipped: unknown[]; reportPath: string; source: { items: number } };
    expect(report.numSamples).toBe(4);
    expect(report.numSamples + report.skipped.length).toBe(report.source.items);
    const listed = JSON.parse(readFileSync(report.reportPath, 'utf8')) as { skipped: Array<{ path: string; reason: string }> };
    expect(listed.skipped.map((s) => s.path).sort()).toEqual([join(src, 'a', 'bad.jpg'), join(src, 'b', 'empty.png')]);
    expect(listed.skipped.every((s) => s.reason.length > 10)).toBe(true);
  });
});

describe('beton inspect --env', () => {
  it('names the JPEG decode path the loader will use', async () => {
    const r = await run(['inspect', '--env', '--json']);
    const env = JSON.parse(r.out) as { decodePath: string; decode: string; writerJpeg: string };
    expect(['turbojpeg-npm', 'sharp']).toContain(env.decodePath);
    expect(env.decode.length).toBeGreaterThan(5);
    expect(env.writerJpeg).toMatch(/libjpeg/);
    // The variable is read once per process: a process of its own.
    const off = spawnSync(process.execPath, [CLI, 'inspect', '--env', '--json'], {
      encoding: 'utf8',
      env: { ...process.env, BETON_TURBOJPEG_LIB: 'off' },
    });
    expect((JSON.parse(off.stdout) as { decodePath: string }).decodePath).toBe('sharp');
  });
});

describe('package entry', () => {
  it("import { Reader } from 'beton-studio' works from the checkout", () => {
    const r = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "import { Reader, DatasetWriter, RGBImageField } from 'beton-studio'; console.log(typeof Reader.open, typeof DatasetWriter, typeof RGBImageField)",
      ],
      {
        encoding: 'utf8',
        cwd: ROOT,
      },
    );
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('function function function');
  });
});
