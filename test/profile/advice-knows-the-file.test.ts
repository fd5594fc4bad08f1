// Issue 22: profile advice never suggests what the file already is: an all-raw file is not
// told to "store images raw", a JPEG-only file not to "store JPEG", and shrinking is
// suggested below the stored size (never a max resolution the file already fits in).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildDataset } from '../../core/app/build.js';
import { parseBuildConfig } from '../../core/api/build-config.js';
import { datasetInfo } from '../../core/profile/sweep/sweep.js';
import { decodeAdvice, diskAdvice } from '../../core/profile/verdict/verdict-advice.js';
import type { DatasetInfo, MachineInfo } from '../../core/api/profile-model.js';

const machine: MachineInfo = { hostname: 'box', cpuModel: 'cpu', cores: 2, ramBytes: 2 ** 34, os: 'Linux', node: 'v20', gpus: [] };
const file = (images?: DatasetInfo['images']): DatasetInfo => ({
  path: 'x.beton',
  sizeBytes: 1 << 30,
  headerSha256: 'x',
  numSamples: 100,
  schema: [],
  ...(images ? { images } : {}),
});
const dir = mkdtempSync(join(tmpdir(), 'beton-advice-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('decode and disk advice know the file', () => {
  it('an all-raw file is not told to store images raw, nor about pass-through', () => {
    const advice = decodeAdvice(null, machine, false, file({ raw: 100, jpg: 0, maxSide: 500 })).join('\n');
    expect(advice).not.toMatch(/Store images raw/);
    expect(advice).not.toMatch(/Pass-through/);
    expect(diskAdvice([], file({ raw: 100, jpg: 0, maxSide: 500 }), machine).join('\n')).toMatch(/store JPEG/);
  });

  it('a JPEG-only file is not told to store JPEG', () => {
    const disk = diskAdvice([], file({ raw: 0, jpg: 100, maxSide: 500 }), machine).join('\n');
    expect(disk).not.toMatch(/store JPEG/);
    expect(disk).toMatch(/the images are JPEG already/);
  });

  it('shrinking is suggested below the largest stored side, and not at all for small images', () => {
    const big = decodeAdvice(null, machine, false, file({ raw: 0, jpg: 100, maxSide: 512 })).join('\n');
    expect(big).toMatch(/the largest is 512 px on its longer side.*--max-resolution 256/);
    const small = decodeAdvice(null, machine, false, file({ raw: 0, jpg: 100, maxSide: 100 })).join('\n');
    expect(small).not.toMatch(/max-resolution/i);
  });

  it('datasetInfo counts the stored modes and sizes', async () => {
    const out = join(dir, 'raw.beton');
    const cfg = parseBuildConfig({
      source: { type: 'image_folder', path: resolve(import.meta.dirname, '../../assets/sample-images') },
      output: out,
      image: { writeMode: 'raw', maxResolution: 100 },
    });
    if (!cfg.ok) throw new Error(cfg.errors.join('; '));
    await buildDataset(cfg.value);
    expect(datasetInfo(out).images).toEqual({ raw: 48, jpg: 0, maxSide: 100 });
  });
});
