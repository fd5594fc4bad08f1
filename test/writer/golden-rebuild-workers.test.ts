// Every golden fixture our writer reproduces, rebuilt through the encode pool with 1 and 2
// workers: still FFCV's bytes (test/helpers/golden-rebuild.ts). Slow tier: a worker start per
// case; golden-rebuild.test.ts keeps every fixture on the calling thread and one with 2 workers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { expectByteIdenticalRebuild, REBUILT_FIXTURES } from '../helpers/golden-rebuild.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-rebuild-workers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each(REBUILT_FIXTURES)('rebuild %s', (name) => {
  it.each([1, 2])('is byte-identical to FFCV with %i worker(s)', (numWorkers) => expectByteIdenticalRebuild(name, dir, numWorkers));
});
