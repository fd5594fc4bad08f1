/**
 * FFCV ignores the sidecar manifest (docs/dataset-manifest.md): its Loader reads a .beton
 * with OUT.beton.manifest.json beside it, every label as written.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { parseBuildConfig } from '../../core/api/build-config.js';
import { manifestPathFor } from '../../core/api/dataset-manifest.js';
import { buildDataset } from '../../core/app/build.js';
import { describeFfcv, runFfcv } from './ffcv.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-manifest-ffcv-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeFfcv('FFCV and the sidecar manifest', () => {
  it("FFCV's Loader reads a .beton that has its manifest beside it", async () => {
    const csv = join(dir, 't.csv');
    writeFileSync(csv, 'x,label\n' + Array.from({ length: 40 }, (_, i) => `${i}.25,${i % 4}`).join('\n') + '\n');
    const out = join(dir, 'with-manifest.beton');
    const parsed = parseBuildConfig({ source: { type: 'table', path: csv }, output: out, numWorkers: 0 });
    if (!parsed.ok) throw new Error(parsed.errors.join('; '));
    await buildDataset(parsed.value);
    expect(existsSync(manifestPathFor(out))).toBe(true);
    const { result } = runFfcv<Record<string, Array<Record<string, string>>>>('read_merged.py', { files: [{ path: out }] });
    expect(result[out]!.map((s) => s.label)).toEqual(Array.from({ length: 40 }, (_, i) => String(i % 4)));
  }, 300_000);
});
