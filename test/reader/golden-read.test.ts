import { describe, expect, it } from 'vitest';
import { Reader } from '../../core/reader/reader.js';
import { canonicalSample } from '../../core/reader/canonical.js';
import { fileRegions } from '../../core/reader/inspect.js';
import { fixtureNames, fixturePath, manifest } from '../helpers/fixtures.js';

/** Every golden file written by the real FFCV reads back exactly as its manifest says. */
describe.each(fixtureNames())('golden fixture %s', (name) => {
  const m = manifest(name);

  it('matches every sample of the manifest', async () => {
    const r = await Reader.open(fixturePath(name));
    try {
      expect(r.numSamples).toBe(m.num_samples);
      expect(r.pageSize).toBe(m.page_size);
      for (let i = 0; i < r.numSamples; i++) {
        const got = canonicalSample(r, i) as Record<string, unknown>;
        const want = m.samples[i]!;
        for (const [field, w] of Object.entries(want)) {
          const g = got[field];
          if (w && typeof w === 'object' && 'f64_bits' in w) {
            // repr is informational; the bits are the contract.
            expect((g as { f64_bits: string }).f64_bits, `sample ${i} ${field}`).toBe((w as { f64_bits: string }).f64_bits);
          } else {
            expect(g, `sample ${i} ${field}`).toEqual(w);
          }
        }
      }
    } finally {
      r.close();
    }
  });

  it('matches the byte regions of the manifest', async () => {
    const r = await Reader.open(fixturePath(name));
    try {
      const got = fileRegions(r, true).map(({ name: n, offset, size, sha256 }) => ({ name: n, offset, size, sha256 }));
      const want = m.layout.regions.map(({ name: n, offset, size, sha256 }) => ({ name: n, offset, size, sha256 }));
      expect(got).toEqual(want);
    } finally {
      r.close();
    }
  });
});
