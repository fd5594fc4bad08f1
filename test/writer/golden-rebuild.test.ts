// Our writer reproduces FFCV's golden files byte for byte (test/helpers/golden-rebuild.ts).
// images_jpg and images_smart hold JPEG data: they match too, because our encoder and area
// resize reproduce OpenCV's on the same libjpeg-turbo. images_proportion needs numpy's
// global RNG draws (see docs/format-notes.md) and is not rebuilt.
// Fast: every fixture encoded on the calling thread (no worker start), and one through two
// encode workers; every fixture under 1 and 2 workers is golden-rebuild-workers.test.ts (slow).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { expectByteIdenticalRebuild, REBUILT_FIXTURES } from '../helpers/golden-rebuild.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-rebuild-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each(REBUILT_FIXTURES)('rebuild %s', (name) => {
  it('is byte-identical to FFCV encoded on the calling thread', () => expectByteIdenticalRebuild(name, dir, 0));
});

describe('rebuild images_jpg through the encode pool', () => {
  it('is byte-identical to FFCV with 2 workers', () => expectByteIdenticalRebuild('images_jpg', dir, 2));
});
