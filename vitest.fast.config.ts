// `npm run test:fast`: the full config less the slow tier named in test/tiers.ts (browser,
// FFCV/Python, packed installs, Slurm, fuzz and kill loops). Run it between edits; run
// `npm test` (everything) before a push.
import { configDefaults, defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.js';
import { fastTierExcludes } from './test/tiers.js';

export default mergeConfig(
  base,
  defineConfig({
    test: { exclude: [...configDefaults.exclude, ...fastTierExcludes()] },
  }),
);
