import { expect, it } from 'vitest';
import { fixturePath } from '../helpers/fixtures.js';
import { describeFfcv, ffcvStatus, runFfcv } from './ffcv.js';

describeFfcv('interop harness: the real FFCV', () => {
  it('imports and opens the repo copy of its own golden files', () => {
    const s = ffcvStatus();
    expect(s.ok).toBe(true);
    const files = ['ints_floats', 'images_jpg'].map(fixturePath);
    const { result } = runFfcv<Record<string, number>>('read_fixture.py', { files });
    expect(result).toEqual({ [files[0]!]: 100, [files[1]!]: 40 });
  });
});
