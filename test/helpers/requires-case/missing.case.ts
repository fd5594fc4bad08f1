// Run by test/helpers/requires.test.ts (not matched by the suite's *.test.ts pattern).
import { describe, it } from 'vitest';
import { requires } from '../requires.js';

describe.skipIf(!requires('a tool that is not there', 'install it', false))('needs the tool', () => {
  it('runs', () => undefined);
});
