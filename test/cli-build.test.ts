import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '..');
const CLI = join(ROOT, 'bin/beton.js');
const SAMPLE = join(ROOT, 'assets/sample-images');
const dir = mkdtempSync(join(tmpdir(), 'beton-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function cli(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', cwd: dir });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('beton build (CLI)', () => {
  it('builds the bundled sample with flags, and inspect --json describes it', () => {
    const out = join(dir, 'a.beton');
    const b = cli('build', SAMPLE, '-o', out, '--write-mode', 'smart', '--smart-threshold', '30000', '--max-resolution', '128', '--workers', '2', '--json');
    expect(b.status, b.stderr).toBe(0);
    const report = JSON.parse(b.stdout) as { numSamples: number; imageModes: { image: { raw: number; jpg: number } } };
    expect(report.numSamples).toBe(48);
    expect(report.imageModes.image.raw + report.imageModes.image.jpg).toBe(48);
    expect(report.imageModes.image.jpg).toBeGreaterThan(0);
    const i = cli('inspect', out, '--json');
    expect(i.status, i.stderr).toBe(0);
    const s = JSON.parse(i.stdout) as { numSamples: number; fields: Array<{ name: string; typeId: number; imageModes?: { jpg: number } }> };
    expect(s.numSamples).toBe(48);
    expect(s.fields.map((f) => [f.name, f.typeId])).toEqual([['image', 2], ['label', 1]]);
    expect(s.fields[0]!.imageModes!.jpg).toBe(report.imageModes.image.jpg);
    // Plain (non-TTY) progress lines go to stderr.
    expect(b.stderr).toMatch(/build: 48\/48/);
  });

  it('builds from a config file; flags override it', () => {
    const cfg = join(dir, 'build.json');
    writeFileSync(cfg, JSON.stringify({ source: { type: 'image_folder', path: SAMPLE }, output: 'from-config.beton', image: { writeMode: 'jpg', jpegQuality: 80 }, numWorkers: 1 }));
    const b = cli('build', '--config', cfg, '--json');
    expect(b.status, b.stderr).toBe(0);
    expect(existsSync(join(dir, 'from-config.beton'))).toBe(true);
    expect((JSON.parse(b.stdout) as { imageModes: { image: { jpg: number } } }).imageModes.image.jpg).toBe(48);
  });

  it('an invalid config exits 2 and names the bad key', () => {
    const cfg = join(dir, 'bad.json');
    writeFileSync(cfg, JSON.stringify({ source: { type: 'image_folder', path: SAMPLE }, output: 'x.beton', image: { writeMode: 'webp' }, pageSize: 1000 }));
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

describe('package entry', () => {
  it("import { Reader } from 'beton-studio' works from the checkout", () => {
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', "import { Reader, DatasetWriter, RGBImageField } from 'beton-studio'; console.log(typeof Reader.open, typeof DatasetWriter, typeof RGBImageField)"], {
      encoding: 'utf8',
      cwd: ROOT,
    });
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('function function function');
  });
});
