import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, cliIn } from '../helpers/cli.js';

const ROOT = resolve(__dirname, '../..');
const SAMPLE = join(ROOT, 'assets/sample-images');
const dir = mkdtempSync(join(tmpdir(), 'beton-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cli = cliIn(dir);

describe('beton build (CLI)', () => {
  it('builds the bundled sample with flags, and inspect --json describes it', () => {
    const out = join(dir, 'a.beton');
    const b = cli(
      'build',
      SAMPLE,
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
    expect(report.numSamples).toBe(48);
    expect(report.imageModes.image.raw + report.imageModes.image.jpg).toBe(48);
    expect(report.imageModes.image.jpg).toBeGreaterThan(0);
    const i = cli('inspect', out, '--json');
    expect(i.status, i.stderr).toBe(0);
    const s = JSON.parse(i.stdout) as { numSamples: number; fields: Array<{ name: string; typeId: number; imageModes?: { jpg: number } }> };
    expect(s.numSamples).toBe(48);
    expect(s.fields.map((f) => [f.name, f.typeId])).toEqual([
      ['image', 2],
      ['label', 1],
    ]);
    expect(s.fields[0]!.imageModes!.jpg).toBe(report.imageModes.image.jpg);
    // Plain (non-TTY) progress lines go to stderr.
    expect(b.stderr).toMatch(/build: 48\/48/);
  });

  it('builds from a config file; flags override it', () => {
    const cfg = join(dir, 'build.json');
    writeFileSync(
      cfg,
      JSON.stringify({
        source: { type: 'image_folder', path: SAMPLE },
        output: 'from-config.beton',
        image: { writeMode: 'jpg', jpegQuality: 80 },
        numWorkers: 1,
      }),
    );
    const b = cli('build', '--config', cfg, '--json');
    expect(b.status, b.stderr).toBe(0);
    expect(existsSync(join(dir, 'from-config.beton'))).toBe(true);
    expect((JSON.parse(b.stdout) as { imageModes: { image: { jpg: number } } }).imageModes.image.jpg).toBe(48);
  });

  it('an invalid config exits 2 and names the bad key', () => {
    const cfg = join(dir, 'bad.json');
    writeFileSync(
      cfg,
      JSON.stringify({ source: { type: 'image_folder', path: SAMPLE }, output: 'x.beton', image: { writeMode: 'webp' }, pageSize: 1000 }),
    );
    const b = cli('build', '--config', cfg);
    expect(b.status).toBe(2);
    expect(b.stderr).toContain('image.writeMode');
    expect(b.stderr).toContain('pageSize');
  });

  it('a corrupt source image fails with its path, exit 1, and leaves no output', () => {
    const src = join(dir, 'broken');
    rmSync(src, { recursive: true, force: true });
    for (const cls of ['a', 'b']) {
      const d = join(src, cls);
      spawnSync('mkdir', ['-p', d]);
      spawnSync('cp', [join(SAMPLE, 'circles/circles_00.jpg'), join(d, 'ok.jpg')]);
    }
    writeFileSync(join(src, 'b', 'zz-broken.jpg'), Buffer.from('this is not a jpeg'));
    const out = join(dir, 'broken.beton');
    const b = cli('build', src, '-o', out, '--workers', '1');
    expect(b.status).toBe(1);
    expect(b.stderr).toContain('zz-broken.jpg');
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });
});

describe('beton build: sources, slices and policies', () => {
  it('--schema-only prints an editable config that --config accepts', () => {
    const b = cli('build', SAMPLE, '--schema-only', '--write-mode', 'jpg');
    expect(b.status, b.stderr).toBe(0);
    const cfg = JSON.parse(b.stdout) as { source: { type: string }; fields: Array<{ name: string; type: string; writeMode?: string }> };
    expect(cfg.source.type).toBe('image_folder');
    expect(cfg.fields.map((f) => [f.name, f.type])).toEqual([
      ['image', 'rgb_image'],
      ['label', 'int'],
    ]);
    expect(cfg.fields[0]!.writeMode).toBe('jpg');
    const file = join(dir, 'schema.json');
    writeFileSync(file, JSON.stringify({ ...cfg, output: join(dir, 'from-schema.beton') }));
    const c = cli('build', '--config', file);
    expect(c.status, c.stderr).toBe(0);
    expect(c.stdout).toContain('48 samples written, 0 skipped');
  });

  it('--seed sets the per-sample draws: proportion builds with the same seed are the same file, another seed another', () => {
    const hash = (f: string): string => createHash('sha256').update(readFileSync(f)).digest('hex');
    const build = (name: string, seed: string): string => {
      const out = join(dir, name);
      const b = cli('build', SAMPLE, '-o', out, '--write-mode', 'proportion', '--seed', seed, '--workers', '1');
      expect(b.status, b.stderr).toBe(0);
      return hash(out);
    };
    const seven = build('seed7a.beton', '7');
    expect(build('seed7b.beton', '7')).toBe(seven);
    expect(build('seed8.beton', '8')).not.toBe(seven);
    expect(cli('build', SAMPLE, '--schema-only', '--seed', '9').stdout).toMatch(/"seed": 9/);
  });

  it('shards k/N are contiguous and concatenate to the whole dataset; --range slices', () => {
    const labels: string[] = [];
    for (let k = 0; k < 3; k++) {
      const out = join(dir, `shard-${k}.beton`);
      const b = cli('build', SAMPLE, '-o', out, '--shard', `${k}/3`, '--workers', '1');
      expect(b.status, b.stderr).toBe(0);
      const d = JSON.parse(cli('dump', out).stdout) as { samples: Array<{ label: string }> };
      labels.push(...d.samples.map((s) => s.label));
    }
    const full = join(dir, 'full.beton');
    expect(cli('build', SAMPLE, '-o', full, '--workers', '1').status).toBe(0);
    const all = (JSON.parse(cli('dump', full).stdout) as { samples: Array<{ label: string }> }).samples.map((s) => s.label);
    expect(labels).toEqual(all);
    const r = cli('build', SAMPLE, '-o', join(dir, 'range.beton'), '--range', '10:-30', '--json');
    expect((JSON.parse(r.stdout) as { numSamples: number }).numSamples).toBe(8);
    expect(cli('build', SAMPLE, '-o', join(dir, 'x.beton'), '--shard', '3/3').status).toBe(2);
  });

  it('--on-error skip writes the good samples and lists exactly the bad files', () => {
    const src = join(dir, 'skipsrc');
    for (const cls of ['a', 'b']) {
      spawnSync('mkdir', ['-p', join(src, cls)]);
      spawnSync('cp', [join(SAMPLE, 'circles/circles_00.jpg'), join(src, cls, 'ok1.jpg')]);
      spawnSync('cp', [join(SAMPLE, 'stripes/stripes_03.png'), join(src, cls, 'ok2.png')]);
    }
    writeFileSync(join(src, 'a', 'bad.jpg'), Buffer.from('not an image'));
    writeFileSync(join(src, 'b', 'empty.png'), Buffer.alloc(0));
    const out = join(dir, 'skip.beton');
    const b = cli('build', src, '-o', out, '--on-error', 'skip', '--json');
    expect(b.status, b.stderr).toBe(0);
    const report = JSON.parse(b.stdout) as { numSamples: number; skipped: unknown[]; reportPath: string; source: { items: number } };
    expect(report.numSamples).toBe(4);
    expect(report.numSamples + report.skipped.length).toBe(report.source.items);
    const listed = JSON.parse(readFileSync(report.reportPath, 'utf8')) as { skipped: Array<{ path: string; reason: string }> };
    expect(listed.skipped.map((s) => s.path).sort()).toEqual([join(src, 'a', 'bad.jpg'), join(src, 'b', 'empty.png')]);
    expect(listed.skipped.every((s) => s.reason.length > 10)).toBe(true);
  });
});

describe('beton inspect --env', () => {
  it('names the JPEG decode path the loader will use', () => {
    const r = cli('inspect', '--env', '--json');
    expect(r.status, r.stderr).toBe(0);
    const env = JSON.parse(r.stdout) as { decodePath: string; decode: string; writerJpeg: string };
    expect(['turbojpeg-npm', 'sharp']).toContain(env.decodePath);
    expect(env.decode.length).toBeGreaterThan(5);
    expect(env.writerJpeg).toMatch(/libjpeg/);
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
