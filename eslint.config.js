// Lint: typescript-eslint's recommended rules plus the layer rules of
// docs/architecture.md (which folder may import what).
import tseslint from 'typescript-eslint';

const nodeBuiltins = ['node:*', 'fs', 'fs/*', 'path', 'os', 'child_process', 'worker_threads', 'crypto', 'url', 'util', 'stream'];

const pure = {
  patterns: [
    { group: nodeBuiltins, message: 'pure layer: no I/O (node:*) here; move it to a node-layer folder' },
    { group: ['sharp', 'better-sqlite3', '**/native/**', '**/reader/**', '**/writer/**', '**/loader/**', '**/sources/**', '**/cli/**'], message: 'pure layer: may import only other pure modules' },
    { group: ['electron', 'react', 'react-dom', 'zustand', 'recharts'], message: 'core must not depend on the app' },
  ],
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'native/build/**', 'renderer/dist/**', 'coverage/**', '.bench/**', '.cache/**', 'native-bindings/**'] },
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
      'no-restricted-imports': ['error', { patterns: [{ group: ['electron', 'react', 'react-dom', 'zustand', 'recharts'], message: 'core must not depend on the app' }] }],
    },
  },
  {
    files: ['core/format/**/*.ts', 'core/fields/**/*.ts', 'core/pipeline/**/*.ts', 'core/api/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', pure] },
  },
  {
    // The renderer (dom layer): a sandboxed page. No Node modules, no Electron, and from core
    // only `import type` of the contract (core/api); everything else goes through lib/api.ts.
    files: ['renderer/**/*.ts', 'renderer/**/*.tsx'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: nodeBuiltins, message: 'renderer: no Node modules here; ask the host through the contract (renderer/src/lib/api.ts)' },
            { group: ['electron', 'sharp', 'better-sqlite3', 'zod', 'beton-studio'], message: 'renderer: a sandboxed page; it reaches the app only through the contract' },
            { group: ['**/core/**', '!**/core/api', '!**/core/api/**'], message: 'renderer: from core only the contract (core/api), and only its types' },
            { group: ['**/core/api', '**/core/api/**'], allowTypeImports: true, message: 'renderer: use `import type` from core/api (its schemas and zod stay on the host side)' },
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
