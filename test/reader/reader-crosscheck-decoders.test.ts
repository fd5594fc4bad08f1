// Issue 12, item 8, the whole matrix: every image decoder of the loader (simple, center, rrc)
// rejects every edited image metadata that `beton dump` rejects, naming the sample, and loads
// the unedited files. Slow tier: each case starts a Loader worker (20 of them);
// test/reader/reader-crosscheck.test.ts keeps one decoder per kind of edit in the fast tier.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeOf, DECODERS, loaderOutcome, metaAt, sizeEdits, variants, writeFixedJpegBeton } from '../helpers/edited-beton.js';
import { FIXTURES } from '../helpers/fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-xcheck-dec-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const variant = variants(dir);
const jpgFixed = join(dir, 'jpg-fixed.beton');
const decoders = Object.entries(DECODERS);

beforeAll(() => writeFixedJpegBeton(jpgFixed));

describe('every loader decoder rejects what the Reader rejects (issue 12, item 8)', () => {
  it('image mode 2 or 255: dump says CORRUPT_DATA, every decoder CORRUPT_SAMPLE naming the sample', async () => {
    for (const mode of [2, 255]) {
      const at = await metaAt(jpgFixed, 6, 0);
      const p = variant(jpgFixed, (b) => (b[at] = mode));
      expect(await codeOf(p)).toBe('CORRUPT_DATA');
      for (const [name, d] of decoders) expect(await loaderOutcome(p, d), `${name}, mode ${mode}`).toBe('CORRUPT_SAMPLE:6');
    }
  });

  it('JPEG size contradicting the metadata: dump says CORRUPT_DATA, every decoder CORRUPT_SAMPLE', async () => {
    const { narrower, wider, taller } = await sizeEdits(jpgFixed, variant);
    for (const p of [narrower, wider, taller]) expect(await codeOf(p)).toBe('CORRUPT_DATA');
    for (const [name, d] of decoders) {
      expect(await loaderOutcome(narrower, d), name).toBe('CORRUPT_SAMPLE:0');
      expect(await loaderOutcome(wider, d), name).toBe('CORRUPT_SAMPLE:0');
    }
    // The simple decoder needs one size for every sample: a single taller one is the crops' case.
    for (const [name, d] of decoders.filter(([k]) => k !== 'simple')) expect(await loaderOutcome(taller, d), name).toBe('CORRUPT_SAMPLE:9');
    // The unmodified file loads with every decoder.
    for (const [name, d] of decoders) expect(await loaderOutcome(jpgFixed, d), name).toBe('OK');
  });

  it('the fixture with mixed raw/JPEG images loads unchanged with every decoder', async () => {
    copyFileSync(join(FIXTURES, 'images_fixedsize.beton'), join(dir, 'fixed.beton'));
    for (const [name, d] of decoders) expect(await loaderOutcome(join(dir, 'fixed.beton'), d), name).toBe('OK');
  });
});
