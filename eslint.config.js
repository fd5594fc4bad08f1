// Lint: typescript-eslint's recommended rules plus the layer rules of
// docs/architecture.md: core's folders form one order, and a folder may import only the
// folders below it (a wrong-direction import fails `npm run lint`, and so `npm test`).
import tseslint from 'typescript-eslint';

const nodeBuiltins = ['node:*', 'fs', 'fs/*', 'path', 'os', 'child_process', 'worker_threads', 'crypto', 'url', 'util', 'stream'];
const appPackages = { group: ['electron', 'react', 'react-dom', 'zustand', 'recharts'], message: 'core must not depend on the app' };

/**
 * core's layers, lowest first (docs/architecture.md draws them and says what each owns).
 * A folder may import the folders of lower levels only: not its peers on the same level
 * (the writer and the loader share the reader and the workers, never each other), not
 * anything above. The first four are pure (no I/O; the renderer may import types of api).
 */
export const LEVELS = [
  ['format'],
  ['pipeline'],
  ['api'],
  ['fields'],
  ['native'],
  ['images', 'workers'],
  ['remote'],
  ['reader'],
  ['writer', 'loader'],
  ['sources', 'profile'],
  ['runs', 'export'],
  ['app'],
  ['services'],
  ['cli'],
];
const PURE = ['format', 'fields', 'pipeline', 'api'];
const levelOf = (folder) => LEVELS.findIndex((l) => l.includes(folder));
const order = LEVELS.map((l) => l.join(' | ')).join(' < ');

/** The rule for core/<folder>: its peers and every folder above are out of reach. */
function layerRule(folder) {
  const out = LEVELS.slice(levelOf(folder))
    .flat()
    .filter((f) => f !== folder);
  const patterns = [appPackages];
  if (PURE.includes(folder)) {
    patterns.push({ group: nodeBuiltins, message: 'pure layer: no I/O (node:*) here; move it to a node-layer folder' });
    patterns.push({ group: ['sharp', 'better-sqlite3'], message: 'pure layer: no native packages here; move it to a node-layer folder' });
  }
  if (out.length > 0) {
    patterns.push({
      group: out.flatMap((f) => [`**/${f}`, `**/${f}/**`]),
      message: `layer order (docs/architecture.md: ${order}): core/${folder} may import only folders on lower levels; move the shared piece down, or the caller up`,
    });
  }
  return { files: [`core/${folder}/**/*.ts`], rules: { 'no-restricted-imports': ['error', { patterns }] } };
}

// A spread into a call passes every element as an argument: an array from user data
// (125k CSV columns) overflows the stack. Loop or reduce instead (issue 19 item 11).
const NO_SPREAD_INTO_CALLS = [
  {
    selector: 'CallExpression[callee.property.name=/^(push|unshift|splice|apply)$/] > SpreadElement',
    message: 'no spread into push/unshift/splice: a long array overflows the call stack; push in a loop',
  },
  {
    selector: "CallExpression[callee.object.name='Math'][callee.property.name=/^(max|min)$/] > SpreadElement",
    message: 'no Math.max/min(...xs): a long array overflows the call stack; use reduce',
  },
  {
    selector: "CallExpression[callee.object.name='String'][callee.property.name=/^fromC/] > SpreadElement",
    message: 'no String.fromCharCode(...bytes): a long array overflows the call stack; decode with TextDecoder (latin1)',
  },
];

/**
 * The front ends (core/cli, core/services) reach core through one door: core/app, one
 * function per use case (docs/app-layer.md). Besides app/ and api/ they may import, at run
 * time, only what docs/architecture.md ("The door") lists with its reason; `import type` is
 * free (types are erased). The CLI also hosts the service (`beton serve`): services/ is its.
 */
export const DOOR_ALLOWED = [
  'format/errors.js',
  'format/printable.js',
  'remote/url.js',
  'remote/url-policy.js',
  'remote/errors.js',
  'native/confined-opens.js',
  'native/beton-addon.js',
];
const DOOR_CLOSED = LEVELS.flat().filter((f) => !['app', 'api', 'services', 'cli'].includes(f));
const doorMessage =
  'front ends reach core through core/app (docs/app-layer.md): call or add a core/app function for the use case; the few other modules a front end may import are listed, with why, in docs/architecture.md ("The door") and DOOR_ALLOWED';
const doorRule = {
  files: ['core/cli/**/*.ts', 'core/services/**/*.ts'],
  rules: {
    '@typescript-eslint/no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            group: [...DOOR_CLOSED.map((f) => `**/${f}/**`), ...DOOR_ALLOWED.map((m) => `!**/${m}`)],
            allowTypeImports: true,
            message: doorMessage,
          },
        ],
      },
    ],
  },
};
// import() of a closed folder (no-restricted-imports sees only static imports). esquery's
// regex may not hold a slash: \x2F is one.
const doorImportExpression = {
  selector: `ImportExpression[source.value=/^(\\.\\.\\x2F)+(${DOOR_CLOSED.join('|')})\\x2F/]`,
  message: doorMessage,
};
const doorDynamic = [
  { files: ['core/cli/**/*.ts'], rules: { 'no-restricted-syntax': ['error', doorImportExpression] } },
  { files: ['core/services/**/*.ts'], rules: { 'no-restricted-syntax': ['error', ...NO_SPREAD_INTO_CALLS, doorImportExpression] } },
];

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'native/build/**',
      'renderer/dist/**',
      'coverage/**',
      '.bench/**',
      '.cache/**',
      'native-bindings/**',
    ],
  },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['core/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      'no-restricted-imports': ['error', { patterns: [appPackages] }],
    },
  },
  {
    // The folders that handle user data (cli, export and profile build text from bounded lists).
    files: ['core/{format,fields,images,reader,writer,loader,sources,app,services}/**/*.ts'],
    rules: {
      'no-restricted-syntax': ['error', ...NO_SPREAD_INTO_CALLS],
    },
  },
  ...LEVELS.flat().map(layerRule),
  doorRule,
  ...doorDynamic,
  {
    // The renderer (dom layer): a sandboxed page. No Node modules, no Electron, and from core
    // only `import type` of the contract (core/api), plus the contract's plain values from
    // core/api/constants.ts (field types, write modes, bounds, loader defaults: one source for
    // the forms and the host's schemas); everything else goes through lib/api.ts.
    files: ['renderer/**/*.ts', 'renderer/**/*.tsx'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: nodeBuiltins, message: 'renderer: no Node modules here; ask the host through the contract (renderer/src/lib/api.ts)' },
            {
              group: ['electron', 'sharp', 'better-sqlite3', 'zod', 'beton-studio'],
              message: 'renderer: a sandboxed page; it reaches the app only through the contract',
            },
            {
              group: ['**/core/**', '!**/core/api', '!**/core/api/**'],
              message: 'renderer: from core only the contract (core/api), and only its types',
            },
            {
              group: ['**/core/api/**', '!**/core/api/constants.js', '!**/core/api/profile-plan.js'],
              allowTypeImports: true,
              message:
                'renderer: use `import type` from core/api (its schemas and zod stay on the host side); values only from core/api/constants.js and core/api/profile-plan.js (pure: the sweep grid)',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
);
