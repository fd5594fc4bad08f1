// Lint: typescript-eslint's recommended rules plus the layer rules of
// ../shared/design/architecture.md (which folder may import what).
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
  { ignores: ['dist/**', 'node_modules/**', 'native/build/**', 'renderer/dist/**', 'coverage/**', '.bench/**'] },
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
    files: ['**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
);
