/**
 * `npm run bench -- cli-startup`: how long the `beton` CLI takes to answer what loads no
 * dataset (`--version`, `--help`, one command's `--help`), against Node's own start-up
 * (`node -e ""`), run interleaved in the same minutes so machine load hits every case alike.
 * The CLI loads only the command it runs (core/cli/command-table.ts): `--version` should
 * sit close to the Node floor. Medians of wall ms; `over node` is the CLI's own share.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { benchMain, isEntryPoint, runAsScript, type BenchMain } from './lib/cli.js';
import { COMMON_OPTIONS, commonHelp, commonSettings, writeResult, type CommonSettings } from './lib/common-options.js';
import { repoRoot } from './lib/repo.js';
import { median, round } from './lib/stats.js';
import { renderTable } from './lib/table.js';

const REPS = { reps: 15, quickReps: 3 };
const HELP = `npm run bench -- cli-startup [options]
  Wall time of \`beton --version\`, \`beton --help\` and \`beton inspect --help\` vs \`node -e ""\`.
${commonHelp(REPS)}`;

function parse(argv: string[]): CommonSettings | 'help' {
  const { values } = parseArgs({ args: argv, options: COMMON_OPTIONS });
  return values.help ? 'help' : commonSettings(values, REPS);
}

async function run(cfg: CommonSettings): Promise<number> {
  const cli = join(repoRoot(), 'bin', 'beton.js');
  const cases: Array<[string, string[]]> = [
    ['node -e ""', ['-e', '']],
    ['beton --version', [cli, '--version']],
    ['beton --help', [cli, '--help']],
    ['beton inspect --help', [cli, 'inspect', '--help']],
  ];
  const ms = cases.map(() => [] as number[]);
  for (let r = 0; r < cfg.reps; r++) {
    cases.forEach(([name, args], i) => {
      const t0 = performance.now();
      const p = spawnSync(process.execPath, args, { stdio: 'ignore', env: { ...process.env, BETON_DEBUG: '' } });
      if (p.status !== 0) throw new Error(`${name} exited ${p.status}`);
      ms[i]!.push(performance.now() - t0);
    });
  }
  const floor = median(ms[0]!);
  const rows = cases.map(([name], i) => {
    const m = median(ms[i]!);
    return { name, medianMs: round(m), overNodeMs: round(m - floor), ratio: round(m / floor, 2) };
  });
  console.log(
    renderTable(
      ['case', 'median ms', 'over node ms', '× node'],
      rows.map((r) => [r.name, String(r.medianMs), String(r.overNodeMs), String(r.ratio)]),
    ),
  );
  writeResult({ benchmark: 'cli-startup', reps: cfg.reps, rows }, cfg.jsonFile);
  return 0;
}

export const main: BenchMain = benchMain('cli-startup', HELP, parse, run);

if (isEntryPoint(import.meta.url)) runAsScript(main);
