// For test/helpers/requires.test.ts only: runs the *.case.ts files here, which the suite skips.
import { defineConfig } from 'vitest/config';

export default defineConfig({ test: { include: ['test/helpers/requires-case/*.case.ts'] } });
