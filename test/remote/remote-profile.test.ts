import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliInProcess } from '../helpers/cli-in-process.js';
import { fixturePath } from '../helpers/fixtures.js';
import { fileBytes } from '../helpers/remote-servers.js';
import { remoteTestFile } from '../helpers/remote-test-file.js';

/*
 * Slow tier (test/tiers.ts): `beton profile` over s3://, a real sweep (a warm-up and a timed
 * point). It was in remote-cli.test.ts; the other commands over URLs stay there, fast.
 */
const f = remoteTestFile(['data'], {
  prepare: (srv) => srv.put('data', 'images_jpg.beton', fileBytes(fixturePath('images_jpg'))),
  env: (srv, dir) => ({ ...srv.env(), HOME: dir, BETON_DEBUG: '' }),
});

describe('profile over s3://', () => {
  it('profile sweeps a file over s3://', async () => {
    const r = await cliInProcess(
      'profile',
      's3://data/images_jpg.beton',
      '--workers',
      '1',
      '--batch-sizes',
      '8',
      '--seconds',
      '1',
      '--no-gpu',
      '--db',
      join(f.dir, 'runs.db'),
      '--json',
    );
    expect(r.code, r.err).toBe(0);
    const run = JSON.parse(r.out) as { dataset: { path: string }; points: Array<{ network?: { bytes: number; requests: number } }> };
    expect(run.dataset.path).toBe('s3://data/images_jpg.beton');
    // Each point records what it cost on the network (the whole file fits the pool: maybe nothing after the warm-up).
    expect(run.points[0]!.network).toMatchObject({ bytes: expect.any(Number), requests: expect.any(Number) });
  }, 180_000);
});
