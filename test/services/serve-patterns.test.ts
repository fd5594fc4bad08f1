/**
 * Issue 29, item 5: patterns in the app. Brace and glob sources answered NOT_FOUND under
 * `beton serve` (patterns could not be used there at all); a shard list in a served folder
 * probed outside it (its globs enumerated outside names; "does not exist" vs "outside" told
 * what exists). Now patterns expand inside the served folders, each name confined, and an
 * outside name gets the same answer whether it exists or not.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BetonService } from '../../core/services/beton-service.js';
import { tarOf } from '../helpers/tar-bytes.js';

const dir = mkdtempSync(join(tmpdir(), 'serve-patterns-'));
const served = join(dir, 'served');
const outside = join(dir, 'outside');
let service: BetonService;

type Answer = {
  ok: boolean;
  value?: { config?: { source?: { type: string } } } & Record<string, unknown>;
  error?: { code: string; message: string };
};
const detect = async (path: string): Promise<Answer> => (await service.call('sources.detect', { path })) as Answer;

beforeAll(() => {
  mkdirSync(served);
  mkdirSync(outside);
  for (const k of ['000', '001']) writeFileSync(join(served, `a-${k}.tar`), tarOf([[`s${k}.cls`, '1']]));
  for (const k of ['1', '2']) writeFileSync(join(served, `t-${k}.csv`), 'x,y\n1,2\n');
  writeFileSync(join(outside, 'secret-name.tar'), tarOf([['z.cls', '3']]));
  writeFileSync(join(served, 'glob-out.txt'), '../outside/*.tar\n');
  writeFileSync(join(served, 'exists-out.txt'), '../outside/secret-name.tar\n');
  writeFileSync(join(served, 'missing-out.txt'), '../outside/nothing-here.tar\n');
  service = new BetonService({ roots: [served], host: 'server', dbPath: join(dir, 'runs.sqlite') });
});

afterAll(() => {
  service?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('patterns under beton serve (issue 29)', () => {
  it('a brace pattern of shards and a glob of tables are detected inside the served folder', async () => {
    const shards = await detect(join(served, 'a-{000..001}.tar'));
    expect(shards.ok, JSON.stringify(shards.error)).toBe(true);
    expect(JSON.stringify(shards.value)).toContain('webdataset');
    const tables = await detect(join(served, 't-*.csv'));
    expect(tables.ok, JSON.stringify(tables.error)).toBe(true);
    expect(JSON.stringify(tables.value)).toContain('"table"');
  });

  it('a pattern whose folder is outside: FORBIDDEN, nothing listed', async () => {
    for (const p of [join(outside, '*.tar'), join(outside, 'secret-{name,other}.tar'), join(served, '..', 'outside', '*.tar')]) {
      const r = await detect(p);
      expect(r.ok).toBe(false);
      expect(r.error?.code).toBe('FORBIDDEN');
      expect(r.error?.message).not.toContain('secret-name');
    }
  });

  it('a shard list pointing outside: its glob lists nothing there; existing and missing outside names answer alike', async () => {
    const glob = await detect(join(served, 'glob-out.txt'));
    expect(glob.ok).toBe(false);
    expect(glob.error?.message).not.toContain('secret-name');
    const exists = await detect(join(served, 'exists-out.txt'));
    const missing = await detect(join(served, 'missing-out.txt'));
    expect(exists.ok).toBe(false);
    expect(missing.ok).toBe(false);
    expect(exists.error?.code).toBe(missing.error?.code);
    const shape = (m: string | undefined): string =>
      (m ?? '').replace(/secret-name|nothing-here/g, 'NAME').replace(/(exists|missing)-out/g, 'LIST');
    expect(shape(exists.error?.message)).toBe(shape(missing.error?.message));
    expect(exists.error?.message).not.toMatch(/does not exist/);
  });
});
