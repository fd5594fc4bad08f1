/**
 * The renderer may import from core only types of the contract (core/api) and the contract's
 * values from core/api/constants.ts (issue 23: before, it repeated field types, write modes,
 * dtypes and bounds by hand). Lint (eslint.config.js) enforces it; these cases prove a value
 * import from anything else in core fails lint, and the allowed ones pass.
 */
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
let eslint: ESLint;

async function importErrors(code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, 'renderer/src/lib/x.ts') });
  return result!.messages.filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports').map((m) => m.message);
}

describe('renderer imports from core', () => {
  beforeAll(() => {
    eslint = new ESLint({ cwd: ROOT });
  });

  it.each([
    ["import { BuildConfig } from '../../../core/api/build-config.js';\nexport const x = BuildConfig;\n", 'a schema (zod) of the contract'],
    ["import { METHODS } from '../../../core/api/contract.js';\nexport const x = METHODS;\n", 'a value of the contract module'],
    [
      "import { ORDER_NAMES } from '../../../core/api/order-names.js';\nexport const x = ORDER_NAMES;\n",
      'a list outside the constants module',
    ],
    [
      "import { DEFAULT_PAGE_SIZE } from '../../../core/format/constants.js';\nexport const x = DEFAULT_PAGE_SIZE;\n",
      'a value below the contract',
    ],
    ["import type { DType } from '../../../core/format/dtype.js';\nexport type X = DType;\n", 'even a type from outside core/api'],
  ])('rejects %s (%s)', async (code) => {
    expect(await importErrors(code)).toHaveLength(1);
  });

  it.each([
    "import { FIELD_TYPES, JPEG_QUALITY } from '../../../core/api/constants.js';\nexport const x = [FIELD_TYPES, JPEG_QUALITY];\n",
    "import type { BuildConfigInput } from '../../../core/api/build-config.js';\nexport type X = BuildConfigInput;\n",
  ])('accepts %s', async (code) => {
    expect(await importErrors(code)).toEqual([]);
  });
});
