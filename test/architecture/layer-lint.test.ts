/**
 * The layer order is enforced by lint (eslint.config.js, drawn in docs/architecture.md), and
 * `npm test` runs lint first: these cases prove that a wrong-direction import is an error,
 * a right-direction one is not, and that every folder of core has a place in the order.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
let eslint: ESLint;

/** The layer-rule messages ESLint gives a virtual file at `path` holding `code`. */
async function layerErrors(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, path) });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('layer lint', () => {
  beforeAll(() => {
    eslint = new ESLint({ cwd: ROOT });
  });

  it.each([
    ['core/reader/x.ts', "import { main } from '../cli/main.js';\nexport const x = main;\n", 'a low node layer importing the CLI'],
    [
      'core/writer/x.ts',
      "import { openSource } from '../sources/open-source.js';\nexport const x = openSource;\n",
      'the writer opening sources (the old cycle)',
    ],
    [
      'core/loader/x.ts',
      "import { spawnWorker } from '../writer/spawn-worker.js';\nexport const x = spawnWorker;\n",
      'a peer: the loader reaching into the writer',
    ],
    [
      'core/loader/orders/x.ts',
      "import type { SweepOptions } from '../../profile/sweep/sweep.js';\nexport type X = SweepOptions;\n",
      'a type import from above, from a subfolder',
    ],
    [
      'core/profile/verdict/x.ts',
      "import { profileSweep } from '../../app/profile-run.js';\nexport const x = profileSweep;\n",
      'an import from above, in a sub-folder of profile (the rule matches core/profile/**)',
    ],
    [
      'core/fields/x.ts',
      "import { Reader } from '../reader/reader.js';\nexport const x = Reader;\n",
      'a pure layer importing a node layer',
    ],
    [
      'core/sources/x.ts',
      "import { buildDataset } from '../app/build.js';\nexport const x = buildDataset;\n",
      'a source calling the build orchestration',
    ],
  ])('rejects %s: %s', async (path, code) => {
    const errors = await layerErrors(path, code);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/layer order \(docs\/architecture\.md/);
  });

  it.each([
    ['core/reader/x.ts', "import { mmapFile } from '../native/mmap.js';\nexport const x = mmapFile;\n"],
    ['core/sources/x.ts', "import { skipMarker } from '../writer/sample.js';\nexport const x = skipMarker;\n"],
    [
      'core/app/x.ts',
      "import { openSource } from '../sources/open-source.js';\nimport { DatasetWriter } from '../writer/dataset-writer.js';\nexport const x = [openSource, DatasetWriter];\n",
    ],
    ['core/cli/x.ts', "import { BetonService } from '../services/beton-service.js';\nexport const x = BetonService;\n"],
  ])('accepts %s importing downwards', async (path, code) => {
    expect(await layerErrors(path, code)).toEqual([]);
  });

  it('places every folder of core in the order', async () => {
    // Loaded by URL: the config is plain JavaScript, without types to import.
    const { LEVELS } = (await import(pathToFileURL(join(ROOT, 'eslint.config.js')).href)) as { LEVELS: string[][] };
    const folders = readdirSync(join(ROOT, 'core'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(LEVELS.flat().sort()).toEqual(folders.sort());
  });
});
