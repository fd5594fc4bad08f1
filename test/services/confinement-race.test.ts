// Issue 19 item 4: read confinement holds while a folder the guard checked is swapped for a
// symlink to outside during the build. A child swaps `served/data` between a real folder
// and a link to `outside` in a loop; the build (beton serve's read guard, encode workers)
// must never put an outside image into the output: a sample is either the inside image or
// skipped. Inside images are blue, outside ones red. Bounded: 400 tiny images, the swapper
// killed when the build ends (and after 60 s at most).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseBuildConfig } from '../../core/api/build-config.js';
import { buildDataset } from '../../core/app/build.js';
import { Reader } from '../../core/reader/reader.js';
import { FsAccess } from '../../core/services/fs-access.js';

const base = mkdtempSync(join(tmpdir(), 'beton-race-'));
const served = join(base, 'served');
const outside = join(base, 'outside');
const N = 400;
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** An 8×8 binary PPM of one colour. */
const ppm = (r: number, g: number, b: number): Buffer =>
  Buffer.concat([Buffer.from('P6\n8 8\n255\n'), Buffer.from(Array.from({ length: 64 }, () => [r, g, b]).flat())]);

describe('a folder swapped for a link while a build runs', () => {
  it('puts no outside file into the output', async () => {
    mkdirSync(join(served, 'data'), { recursive: true });
    mkdirSync(outside);
    for (let i = 0; i < N; i++) {
      writeFileSync(join(served, 'data', `i${i}.ppm`), ppm(0, 0, 255));
      writeFileSync(join(outside, `i${i}.ppm`), ppm(255, 0, 0));
    }
    writeFileSync(join(served, 'list.csv'), `image,label\n${Array.from({ length: N }, (_, i) => `data/i${i}.ppm,${i}`).join('\n')}\n`);
    const swapper = spawn(
      'bash',
      [
        '-c',
        `cd ${JSON.stringify(served)}; end=$((SECONDS+60)); while [ $SECONDS -lt $end ]; do mv data data.real; ln -s ${JSON.stringify(outside)} data; rm data; mv data.real data; done`,
      ],
      { stdio: 'ignore' },
    );
    try {
      const cfg = parseBuildConfig({
        source: { type: 'image_list', path: join(served, 'list.csv'), imageColumn: 'image' },
        output: join(served, 'out.beton'),
        fields: [
          { name: 'image', type: 'rgb_image', writeMode: 'raw' },
          { name: 'label', type: 'int' },
        ],
        onError: 'skip',
        numWorkers: 2,
        chunkSize: 8,
      });
      if (!cfg.ok) throw new Error(cfg.errors.join('; '));
      const guard = new FsAccess([served]).readGuard()!;
      await buildDataset(cfg.value, { readGuard: guard, overwrite: true });
    } finally {
      swapper.kill('SIGKILL');
      await new Promise((r) => swapper.once('exit', r));
    }
    const r = await Reader.open(join(served, 'out.beton'));
    try {
      let red = 0;
      for (let i = 0; i < r.numSamples; i++) {
        const img = r.read(i).image as { data?: Uint8Array } | Uint8Array;
        const px = img instanceof Uint8Array ? img : img.data!;
        if (px[0] === 255 && px[2] === 0) red++;
      }
      expect(red, `${red} of ${r.numSamples} samples came from outside the served folder`).toBe(0);
    } finally {
      r.close();
    }
  }, 120_000);
});
