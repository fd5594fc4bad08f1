/**
 * The front ends (core/cli, core/services) reach core only through core/app (docs/app-layer.md):
 * lint (eslint.config.js `doorRule`) rejects a run-time import of any other folder of core,
 * except the few modules docs/architecture.md ("The door") lists with their reason. These cases
 * show it failing on a sample front-end file, passing what the list allows, and that the list
 * and the doc name the same modules.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
let eslint: ESLint;

/** The door's messages ESLint gives a virtual file at `path` holding `code`. */
async function doorErrors(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, path) });
  return result!.messages.filter((m) => m.message.includes('front ends reach core through core/app')).map((m) => m.message);
}

describe('the front ends reach core through core/app', () => {
  beforeAll(() => {
    eslint = new ESLint({ cwd: ROOT });
  });

  it.each([
    ['core/cli/x-command.ts', 'the CLI opening a Reader', "import { Reader } from '../reader/reader.js';\nexport const x = Reader;\n"],
    [
      'core/services/x.ts',
      'the service calling the writer',
      "import { mergeDatasets } from '../writer/merge.js';\nexport const x = mergeDatasets;\n",
    ],
    [
      'core/cli/flags/x.ts',
      'from a subfolder of cli',
      "import { checkEngines } from '../../profile/sweep.js';\nexport const x = checkEngines;\n",
    ],
    [
      'core/cli/x-command.ts',
      'format/ beyond errors and printable',
      "import { setOwn } from '../format/own-keys.js';\nexport const x = setOwn;\n",
    ],
    ['core/cli/x-command.ts', 'a dynamic import()', "export const x = () => import('../runs/location.js');\n"],
  ])('rejects %s: %s', async (path, _why, code) => {
    expect(await doorErrors(path, code)).toHaveLength(1);
  });

  it.each([
    ['core/cli/x-command.ts', "import { openDump } from '../app/dump-dataset.js';\nexport const x = openDump;\n"],
    ['core/services/x.ts', "import { parseRequest } from '../api/contract.js';\nexport const x = parseRequest;\n"],
    ['core/cli/x-command.ts', "import { BetonError } from '../format/errors.js';\nexport const x = BetonError;\n"],
    ['core/services/x.ts', "import { isRemoteUrl } from '../remote/url.js';\nexport const x = isRemoteUrl;\n"],
    ['core/services/x.ts', "import type { RunsDb } from '../runs/runs-db.js';\nexport type X = RunsDb;\n"],
    ['core/cli/x-command.ts', "export const x = () => import('../app/env-info.js');\n"],
  ])('allows in %s (case %#)', async (path, code) => {
    expect(await doorErrors(path, code)).toEqual([]);
  });

  it('every module the lint allows is named, with its reason, in docs/architecture.md', async () => {
    const { DOOR_ALLOWED } = (await import(pathToFileURL(join(ROOT, 'eslint.config.js')).href)) as { DOOR_ALLOWED: string[] };
    expect(DOOR_ALLOWED.length).toBeGreaterThan(0);
    const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
    const door = doc.slice(doc.indexOf('### The door'));
    for (const m of DOOR_ALLOWED) expect(door, m).toContain(`\`${m.replace(/\.js$/, '.ts')}\``);
  });
});
