#!/usr/bin/env node
/**
 * `npm run test:mutations` (issue 33): shows that named tests fail when the behaviour they
 * claim is broken. Each mutation is one line of core changed in a copy of the working tree
 * (tracked and untracked files, node_modules linked, native/build copied, dist/ built there),
 * then the named test files run against it: a test that still passes has let the mutation
 * SURVIVE. The same tests first run unmutated (baseline): a test that fails there proves
 * nothing about the mutation, and the run fails saying so.
 *
 * Anchors are regular expressions over the source, not line numbers: core changes under
 * other hands, and a mutation whose anchor is gone (or matches more than once) is reported
 * as such — a clear failure, never a silent pass. Not part of `npm test`: minutes long.
 *
 *   node scripts/mutations.mjs [--only NAME,...] [--no-baseline] [--keep]
 *
 * Exit status: 0 when every mutation was caught; 1 otherwise (a survivor, a missing anchor,
 * a baseline failure).
 */
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * file: the source changed; anchor: the one line it must match exactly once; mutate: the
 * line's replacement (from the match); tests: vitest files (with an optional -t filter, and
 * `because`: what the failure must say, so that a test failing for another reason — a broken
 * build of the copy, a timeout — is reported as such, not counted as catching the mutation);
 * cli: the mutated file must reach dist/ too (the test runs bin/beton.js).
 */
const MUTATIONS = [
  {
    name: 'sigint-ignored',
    what: 'the CLI ignores SIGINT (Ctrl-C) during a command',
    file: 'core/cli/signals.ts',
    anchor: /^(\s*)const handler = \(sig: NodeJS\.Signals\): void => \{$/m,
    mutate: (m) => `${m[0]} if (sig === 'SIGINT') return;`,
    cli: true,
    tests: [
      { file: 'test/cli/cli-errors.test.ts', filter: 'Ctrl-C', because: /expected \+?0 to be 130/ },
      { file: 'test/writer/build-kill.test.ts', filter: 'mid-write', because: /expected \+?0 to be 130/ },
    ],
  },
  {
    name: 'residency-null',
    what: 'page-cache residency always null',
    file: 'core/profile/sampling/page-cache-residency.ts',
    anchor: /^export function pageCacheResidency\(path: string[^\n]*\{$/m,
    mutate: (m) => `${m[0]} if (path !== '\\0') return Promise.resolve(null);`,
    tests: [
      { file: 'test/profile/profile-telemetry.test.ts', filter: 'residency', because: /residency of a file just read/ },
      { file: 'test/profile/profile-sweep.test.ts', filter: 'measures every grid point', because: /point \d+: residency/ },
    ],
  },
  {
    name: 'rrc-off-by-one',
    what: "RandomResizedCrop's top row drawn from one row too many",
    file: 'core/pipeline/crop.ts',
    anchor: /^(\s*)const y = Math\.trunc\(rng\.uniform\(0, h - ch \+ 1\)\);$/m,
    mutate: (m) => m[0].replace('h - ch + 1', 'h - ch + 2'),
    tests: [{ file: 'test/writer/small-datasets.test.ts', filter: "equal to FFCV's crop", because: /crops differ from FFCV's/ }],
  },
  {
    name: 'range-check-removed',
    what: 'the range client accepts an answer whose Content-Range is not the range asked for',
    file: 'core/remote/capped-body.ts',
    anchor: /^(\s*)if \(cr\.start !== offset \|\| cr\.end !== end\)$/m,
    mutate: (m) => `${m[1]}if (cr.start !== offset && cr.start === offset)`,
    tests: [{ file: 'test/remote/remote-faults.test.ts', filter: 'another range than asked', because: /REMOTE_BAD_RANGE/ }],
  },
  {
    name: 'confinement-check-removed',
    what: "FsAccess's read guard lets a path that leads outside the served folders through",
    file: 'core/services/fs-access.ts',
    anchor: /^(\s*)if \(!this\.inside\(r\.path\)\) throw this\.forbidden\(p\);$/m,
    mutate: (m) => `${m[1]}// mutated: ${m[0].trim()}`,
    tests: [
      {
        file: 'test/services/confinement-race.test.ts',
        filter: 'puts no outside file',
        because: /samples came from outside the served folder/,
      },
    ],
  },
  {
    name: 'disk-cache-unused',
    what: 'the remote disk cache never serves a page',
    file: 'core/remote/disk-cache.ts',
    anchor: /^(\s*)async read\(page: number, into: Uint8Array\): Promise<boolean> \{$/m,
    mutate: (m) => `${m[0]} if (page >= 0) return false;`,
    cli: true,
    tests: [{ file: 'test/remote/remote-cli.test.ts', filter: 'cache-dir', because: /pages the second run fetched from the server/ }],
  },
];

const args = process.argv.slice(2);
const only = args.includes('--only') ? args[args.indexOf('--only') + 1].split(',') : null;
const baseline = !args.includes('--no-baseline');
const keep = args.includes('--keep');
const chosen = only ? MUTATIONS.filter((m) => only.includes(m.name)) : MUTATIONS;
if (only && chosen.length !== only.length) {
  console.error(`mutations: unknown name in --only ${only.join(',')}; known: ${MUTATIONS.map((m) => m.name).join(', ')}`);
  process.exit(2);
}

const run = (cmd, argv, cwd, timeoutS) => {
  const t0 = performance.now();
  const r = spawnSync('timeout', ['-k', '10', String(timeoutS), cmd, ...argv], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
  });
  return { status: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}`, s: (performance.now() - t0) / 1000 };
};

/** The working tree as it is (uncommitted edits included), with dependencies, in a temporary folder. */
function copyTree() {
  const copy = mkdtempSync(join(tmpdir(), 'beton-mutations-'));
  const files = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
    .stdout.split('\0')
    .filter(Boolean);
  for (const f of files) {
    if (f === 'node_modules') continue; // a worktree's link to the main checkout's: linked below
    mkdirSync(dirname(join(copy, f)), { recursive: true });
    try {
      if (lstatSync(join(ROOT, f)).isSymbolicLink()) symlinkSync(readlinkSync(join(ROOT, f)), join(copy, f));
      else copyFileSync(join(ROOT, f), join(copy, f));
    } catch (e) {
      if (e.code !== 'ENOENT') throw e; // deleted but not yet committed: absent here too
    }
  }
  symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(copy, 'node_modules'));
  cpSync(join(ROOT, 'native/build'), join(copy, 'native/build'), { recursive: true });
  console.log(`copy: ${files.length} files in ${copy}; building dist/ there (tsc)…`);
  const b = run('npx', ['tsc', '-p', 'tsconfig.build.json'], copy, 600);
  if (b.status !== 0) throw new Error(`tsc in the copy failed:\n${b.out}`);
  return copy;
}

/**
 * Transpiles one mutated source into the copy's dist/ (the CLI runs dist/); returns the
 * file's previous text for restore(). ES modules, as tsc emits them here (package.json
 * "type": "module"; transpileModule cannot see that, so the module kind is given).
 */
async function toDist(copy, file) {
  const ts = (await import(join(copy, 'node_modules/typescript/lib/typescript.js'))).default;
  const out = ts.transpileModule(readFileSync(join(copy, file), 'utf8'), {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ES2022, verbatimModuleSyntax: true },
    fileName: file,
  });
  const target = join(copy, 'dist', file.replace(/\.ts$/, '.js'));
  const before = readFileSync(target, 'utf8');
  writeFileSync(target, out.outputText);
  // The mutated module must load: a mutation that breaks the import would be "caught" for nothing.
  const load = spawnSync(
    process.execPath,
    ['-e', `import(${JSON.stringify(target)}).catch((e) => { console.error(e.message); process.exit(1); })`],
    {
      encoding: 'utf8',
    },
  );
  if (load.status !== 0) throw new Error(`the mutated ${file} does not load: ${load.stderr}`);
  return () => writeFileSync(target, before);
}

function vitest(copy, t) {
  const argv = ['vitest', 'run', t.file, ...(t.filter ? ['-t', t.filter] : [])];
  const r = run('npx', argv, copy, 600);
  const tests = /Tests\s+(.*)$/m.exec(r.out)?.[1]?.trim() ?? '';
  // A filter that matched nothing "passes" with every test skipped: that is no test at all.
  const ran = /\d+ (passed|failed)/.test(tests);
  return { ok: r.status === 0 && ran, ran, tests, out: r.out, s: r.s };
}

const rows = [];
let copy;
try {
  copy = copyTree();
  if (baseline) {
    for (const m of chosen)
      for (const t of m.tests) {
        const b = vitest(copy, t);
        console.log(
          `baseline ${t.file}${t.filter ? ` -t "${t.filter}"` : ''}: ${b.ok ? 'passes' : 'FAILS'} (${b.tests}, ${b.s.toFixed(0)} s)`,
        );
        if (!b.ok) {
          rows.push({ m, t, result: b.ran ? 'BASELINE FAILS' : 'NO TEST RAN', s: b.s, detail: b.out.slice(-3000) });
          t.skip = true;
        }
      }
  }
  for (const m of chosen) {
    const path = join(copy, m.file);
    const original = readFileSync(path, 'utf8');
    const g = new RegExp(m.anchor.source, `${m.anchor.flags.replace('g', '')}g`);
    const found = [...original.matchAll(g)];
    if (found.length !== 1) {
      for (const t of m.tests)
        rows.push({ m, t, result: found.length ? `ANCHOR x${found.length}` : 'ANCHOR GONE', s: 0, detail: `${m.file}: ${m.anchor}` });
      continue;
    }
    const match = found[0];
    const line = original.slice(0, match.index).split('\n').length;
    writeFileSync(path, original.slice(0, match.index) + m.mutate(match) + original.slice(match.index + match[0].length));
    const restoreDist = m.cli ? await toDist(copy, m.file) : null;
    try {
      for (const t of m.tests) {
        if (t.skip) continue;
        const r = vitest(copy, t);
        rows.push({
          m,
          t,
          line,
          result: !r.ran ? 'NO TEST RAN' : r.ok ? 'SURVIVED' : t.because && !t.because.test(r.out) ? 'FAILED OTHERWISE' : 'caught',
          s: r.s,
          detail: r.out.slice(-3000),
        });
        console.log(`${m.name} (${m.file}:${line}) → ${t.file}: ${rows.at(-1).result} (${r.tests}, ${r.s.toFixed(0)} s)`);
      }
    } finally {
      writeFileSync(path, original);
      restoreDist?.();
    }
  }
} finally {
  if (copy && !keep) rmSync(copy, { recursive: true, force: true });
  else if (copy) console.log(`kept: ${copy}`);
}

const pad = (s, n) => String(s).padEnd(n);
console.log(`\n${pad('mutation', 27)}${pad('changed line', 42)}${pad('test', 72)}result`);
for (const r of rows) {
  const test = `${r.t.file}${r.t.filter ? ` -t "${r.t.filter}"` : ''}`;
  console.log(`${pad(r.m.name, 27)}${pad(`${r.m.file}:${r.line ?? '?'}`, 42)}${pad(test, 72)}${r.result} (${r.s.toFixed(0)} s)`);
}
const bad = rows.filter((r) => r.result !== 'caught');
for (const r of bad) console.log(`\n--- ${r.m.name} / ${r.t.file}: ${r.result} (${r.m.what})\n${r.detail}`);
const caught = new Set(rows.filter((r) => r.result === 'caught').map((r) => r.m.name));
console.log(`\n${caught.size} of ${chosen.length} mutations caught by every named test; ${bad.length} problem(s).`);
process.exit(bad.length === 0 && caught.size === chosen.length ? 0 : 1);
