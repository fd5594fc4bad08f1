/**
 * The README, run verbatim (issues 22 and 30):
 * - "Your first dataset in five commands": the five lines of its sh block, each run as written
 *   by bash in a folder outside the checkout with `beton` on PATH (the built CLI, as `npm
 *   link` puts it there) and its own runs database; then the exported loader under FFCV;
 * - its library example, on a folder of 48 images (smaller than the example's batch of 256):
 *   it must not iterate zero batches and exit 0; it fails naming dropLast and both ways out;
 * - its Quick start in a fresh clone, GitHub unreachable (as here and in CI) and no
 *   ELECTRON_SKIP_BINARY_DOWNLOAD: exit 0, one line about Electron's binary, and `npm start`
 *   then says in one line what to do. A clone installs every dependency (from npm's cache,
 *   warm after `npm ci`), compiles the addon and builds the app: minutes, so it runs where
 *   the full suite runs (CI=true or BETON_TEST_QUICK_START=1).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ffcvStatus, PYTHON } from '../interop/ffcv.js';

const ROOT = resolve(import.meta.dirname, '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const work = mkdtempSync(join(tmpdir(), 'beton-readme-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The first fenced block of `lang` after the heading `heading`. */
function block(heading: string, lang: string): string {
  const at = README.indexOf(`\n${heading}\n`);
  expect(at, heading).toBeGreaterThanOrEqual(0);
  const m = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(README.slice(at));
  expect(m, `${heading}: a \`\`\`${lang} block`).not.toBeNull();
  return m![1]!;
}

describe('the README: your first dataset in five commands', () => {
  it('runs verbatim from a folder outside the checkout: build, inspect, check, profile, export', () => {
    const commands = block('## Your first dataset in five commands', 'sh')
      .split('\n')
      .map((l) => l.replace(/\s+#.*$/, '').trim())
      .filter(Boolean);
    // The README names them, in this order; a drift (a sixth, a renamed one) fails here.
    expect(commands.map((c) => c.split(' ').slice(0, 2).join(' '))).toEqual([
      'beton build',
      'beton inspect',
      'beton check',
      'beton profile',
      'beton export',
    ]);
    if (!existsSync(join(ROOT, 'dist/core/cli/main.js'))) throw new Error('the CLI is not built: run `npm run build:ts` first');
    const cwd = join(work, 'first');
    const bin = join(work, 'bin');
    mkdirSync(bin, { recursive: true });
    symlinkSync(join(ROOT, 'bin/beton.js'), join(bin, 'beton'));
    // The README's suggestion for a newcomer without images: the 48 bundled ones as photos/.
    cpSync(join(ROOT, 'assets/sample-images'), join(cwd, 'photos'), { recursive: true });
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PATH: `${bin}:${process.env.PATH ?? ''}`,
      BETON_DB: join(work, 'first-runs.sqlite'),
      BETON_DEBUG: '',
    };
    const outputs: string[] = [];
    for (const command of commands) {
      const r = spawnSync('timeout', ['-k', '5', '240', 'bash', '-c', command], { cwd, encoding: 'utf8', env });
      expect(r.status, `${command}\n${r.stderr.slice(-3000)}`).toBe(0);
      expect(r.stderr, command).not.toMatch(/^\s+at .*:\d+:\d+\)?$/m);
      outputs.push(r.stdout);
    }
    const [build, inspect, check, profile] = outputs as [string, string, string, string];
    expect(build).toMatch(/48 samples written, 0 skipped/);
    expect(build).toMatch(/photos\.beton\.manifest\.json/);
    expect(inspect).toMatch(/48 samples, 2 fields/);
    expect(check).toMatch(/corrupt: 0/);
    expect(check).toMatch(/classes \(label\): 4/);
    expect(profile).toMatch(/^run 1: [A-Z-]+( \(contended\))? · .* · best point #\d+: [\d,]+ img\/s/m);
    // The export: the profiled loader, named, written where the user is.
    const exported = commands[4]!.match(/-o (\S+)/)![1]!;
    const code = readFileSync(join(cwd, exported), 'utf8');
    expect(code).toMatch(/^# From profile run 1, point #\d+ of \d+ \(the fastest\)/m);
    expect(code).toContain('batch_size=48,');
    expect(code).toContain('RandomHorizontalFlip(flip_prob=0.5)');
    // The README says `python load_photos.py` runs it under FFCV: so it does, where FFCV is.
    if (ffcvStatus().ok) {
      const py = spawnSync(
        'timeout',
        ['-k', '5', '300', PYTHON, '-c', `import runpy; runpy.run_path(${JSON.stringify(exported)}, run_name="__main__"); print("ran")`],
        {
          cwd,
          encoding: 'utf8',
        },
      );
      expect(py.status, py.stderr.slice(-3000)).toBe(0);
      expect(py.stdout).toMatch(/ran/);
    }
  }, 900_000);
});

describe('the README library example', () => {
  it('run verbatim on 48 images with its batch of 256: fails naming dropLast instead of zero batches', () => {
    const code = block('## The library', 'ts');
    // Inside the package (so 'beton-studio' resolves to this checkout by self-reference) and
    // plain JavaScript: the example has no type annotations.
    const dir = join(ROOT, 'test-output', `readme-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    const script = join(dir, 'example.mjs');
    writeFileSync(script, code);
    const cwd = join(work, 'lib');
    cpSync(join(ROOT, 'assets/sample-images'), join(cwd, 'data/train'), { recursive: true });
    try {
      const r = spawnSync('timeout', ['-k', '5', '240', process.execPath, script], { cwd, encoding: 'utf8' });
      expect(r.status, r.stderr).not.toBe(0);
      expect(r.stderr).toMatch(/batchSize 256 is larger than the 48 samples .*train\.beton.*dropLast: false.*at most 48/);
      // The build and the read before the loader ran: 48 progress lines, the last "48 48".
      expect(r.stdout.trim().split('\n').at(-1)).toBe('48 48');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});

const quickStart = process.env.CI === 'true' || process.env.BETON_TEST_QUICK_START === '1';

describe.skipIf(!quickStart)('the README Quick start in a fresh clone', () => {
  it('npm install && npm run demo: exit 0 with GitHub unreachable and no environment variable', () => {
    const line = block('## Quick start', 'sh').split('\n')[0]!.replace(/#.*$/, '').trim();
    expect(line).toBe('npm install && npm run demo');
    const clone = join(work, 'clone');
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    execFileSync('git', ['clone', '--quiet', '--no-checkout', ROOT, clone]);
    execFileSync('git', ['checkout', '--quiet', head], { cwd: clone });
    const env: NodeJS.ProcessEnv = { ...process.env, BETON_DB: join(work, 'runs.sqlite') };
    delete env.ELECTRON_SKIP_BINARY_DOWNLOAD;
    delete env.BETON_SKIP_APP_BUILD;
    const t0 = performance.now();
    const r = spawnSync('timeout', ['-k', '5', '1500', 'bash', '-c', line], { cwd: clone, encoding: 'utf8', env });
    const out = `${r.stdout}${r.stderr}`;
    process.stdout.write(`quick start: ${((performance.now() - t0) / 1000).toFixed(0)} s\n`);
    expect(r.status, out.slice(-4000)).toBe(0);
    expect(out).toMatch(/Done\. Next: npm run beton -- inspect/);
    // Electron's binary: skipped in one line that says how to get it (or downloaded).
    const electronLines = out.split('\n').filter((l) => /Electron/.test(l));
    expect(electronLines.length).toBeLessThanOrEqual(1);
    expect(out).not.toMatch(/^\s+at .*\(.*:\d+:\d+\)$/m);
    // npm start without the binary: what to do, in one line, no stack trace.
    if (electronLines.length === 1) {
      expect(electronLines[0]).toMatch(/npm run get-electron/);
      const start = spawnSync('timeout', ['-k', '5', '120', 'npm', 'start', '--silent'], { cwd: clone, encoding: 'utf8', env });
      expect(start.status).not.toBe(0);
      expect(start.stderr.trim().split('\n')).toHaveLength(1);
      expect(start.stderr).toMatch(/npm run get-electron/);
    }
  }, 1_600_000);
});
