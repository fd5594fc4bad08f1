/**
 * Acceptance (issue 22): `npm pack` the package and install it into a fresh project inside a
 * mount namespace that hides every compiler, make, cmake, python3 and libjpeg's headers and
 * library (test/install/without-toolchain.sh). `beton build`, `beton bench-loader` and the
 * library's Loader must work there: the prebuilt addon with libjpeg-turbo compiled in, and
 * npm's cache (warm after `npm ci`) for the dependencies. Then, with the toolchain visible again,
 * the same project encodes with the system's libjpeg (the other prebuild).
 *
 * Needs root (unshare -m) and the npm registry or a warm npm cache; skips otherwise, but under
 * CI=true it must run. Packing builds the prebuilds (libjpeg-turbo from its npm source tarball,
 * then both addons): a few minutes on 2 cores.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const HIDE = join(ROOT, 'test/install/without-toolchain.sh');
const SAMPLES = join(ROOT, 'assets/sample-images');
const canUnshare = process.getuid?.() === 0 && spawnSync('unshare', ['-m', 'true']).status === 0;
const enabled = canUnshare || process.env.CI === 'true';

let work = '';
let project = '';

/** Runs a shell line in the project, toolchain hidden unless `visible`; bounded in time. */
function sh(line: string, opts: { visible?: boolean; timeoutS?: number } = {}): { status: number | null; out: string } {
  const argv = opts.visible ? ['bash', '-c', line] : ['unshare', '-m', 'bash', HIDE, 'bash', '-c', line];
  const r = spawnSync('timeout', ['-k', '5', String(opts.timeoutS ?? 300), ...argv], {
    cwd: project,
    encoding: 'utf8',
    env: { ...process.env, BETON_DB: join(work, 'runs.sqlite'), npm_config_update_notifier: 'false' },
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

describe.skipIf(!enabled)('the npm package installs and works without a toolchain', () => {
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'beton-pack-'));
    project = join(work, 'project');
    execFileSync('mkdir', ['-p', project]);
    // Packed from a copy, so that rebuilding dist/ and the prebuilds cannot disturb other tests
    // reading the checkout's. prepack builds the prebuilds, prepare the library (no app).
    const src = join(work, 'src');
    execFileSync('mkdir', ['-p', join(src, 'native')]);
    for (const p of ['core', 'bin', 'scripts', 'docs', 'README.md', 'package.json', 'tsconfig.json', 'tsconfig.build.json']) {
      cpSync(join(ROOT, p), join(src, p), { recursive: true });
    }
    for (const p of ['binding.gyp', 'src', 'index.d.ts', 'turbo.d.ts'])
      cpSync(join(ROOT, 'native', p), join(src, 'native', p), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), join(src, 'node_modules'));
    execFileSync('timeout', ['-k', '5', '900', 'npm', 'pack', '--silent', '--pack-destination', work], {
      cwd: src,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, BETON_SKIP_APP_BUILD: '1' },
    });
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'fresh', version: '1.0.0', private: true, type: 'module' }));
  }, 1_000_000);
  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('npm install needs no compiler, python3 or libjpeg, and prints no build log', () => {
    const tgz = readdirSync(work).find((f) => f.endsWith('.tgz'));
    expect(tgz).toBeDefined();
    const r = sh(`npm install --prefer-offline --no-audit --no-fund ${join(work, String(tgz))}`, { timeoutS: 600 });
    expect(r.status, r.out).toBe(0);
    expect(r.out).not.toMatch(/^gyp |^make|prebuild-install|spawn args/m);
  }, 700_000);

  it('beton build (JPEG encode), beton bench-loader and the library Loader work, with libjpeg-turbo compiled in', () => {
    const build = sh(`npx beton build ${SAMPLES} -o x.beton --write-mode jpg --force`);
    expect(build.status, build.out).toBe(0);
    expect(build.out).toMatch(/48 samples written/);
    const bench = sh('npx beton bench-loader x.beton --epochs 1 --workers 1 --json');
    expect(bench.status, bench.out).toBe(0);
    expect(bench.out).toMatch(/median_img_per_s/);
    writeFileSync(
      join(project, 'lib.mjs'),
      `import { Loader, RandomResizedCropRGBImageDecoder, nativeAddonOrigin } from 'beton-studio';
const loader = await Loader.open('x.beton', { batchSize: 16, order: 'sequential', numWorkers: 1, pipelines: { image: [RandomResizedCropRGBImageDecoder(64)] } });
let batches = 0;
for await (const b of loader) { b.get('image'); batches++; }
console.log(JSON.stringify({ batches, origin: nativeAddonOrigin() }));`,
    );
    const lib = sh('node lib.mjs');
    expect(lib.status, lib.out).toBe(0);
    expect(JSON.parse(lib.out.trim().split('\n').at(-1) ?? '{}')).toEqual({ batches: 3, origin: 'prebuilt-bundled-jpeg' });
  }, 120_000);

  it("where the system's libjpeg is present, the prebuild linked to it is used", () => {
    const r = sh(`node -e "import('beton-studio').then(m => console.log(m.nativeAddonOrigin()))"`, { visible: true });
    expect(r.status, r.out).toBe(0);
    expect(r.out.trim()).toBe('prebuilt-system-jpeg');
  }, 60_000);
});
