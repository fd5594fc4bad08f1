// Issue 19 item 4: under beton serve every input opened through core/native/regular-file.ts
// is re-checked on its descriptor (core/native/confined-opens.ts). A folder inside the served
// root that is (or became, after the check) a link to outside: tables and WebDataset shards
// opened through it are refused FORBIDDEN; files inside, and paths outside every root (not
// the server's business), open as before. The WebDataset shard-list file and a .beton's
// sidecar manifest go through the same opener.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confineOpensTo } from '../../core/native/confined-opens.js';
import { openRegularSync, readRegularText } from '../../core/native/regular-file.js';
import { manifestPathFor } from '../../core/api/dataset-manifest.js';
import { readSidecarManifest } from '../../core/reader/sidecar-manifest.js';
import { openTableReader } from '../../core/sources/tables/open-table.js';
import { tarGroups } from '../../core/sources/webdataset/tar-samples.js';
import { looksLikeShardList, resolveShards } from '../../core/sources/webdataset/webdataset-source.js';
import { realpathSync } from 'node:fs';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'beton-confined-opens-')));
const served = join(base, 'served');
const outside = join(base, 'outside');
afterAll(() => rmSync(base, { recursive: true, force: true }));

beforeAll(() => {
  mkdirSync(join(served, 'in'), { recursive: true });
  mkdirSync(outside);
  for (const d of [join(served, 'in'), outside]) {
    writeFileSync(join(d, 't.csv'), 'v\n1\n');
    writeFileSync(join(d, 'x.tar'), Buffer.alloc(1024));
  }
  // A shard list outside naming a shard inside: read through the link, it would pass every later check.
  writeFileSync(join(outside, 'shards.txt'), `${join(served, 'in', 'x.tar')}\n`);
  writeFileSync(join(outside, 'secret.json'), 'TOP-SECRET');
  symlinkSync(outside, join(served, 'link'));
  confineOpensTo([served]);
});

describe('opens under a served root are checked on the descriptor', () => {
  it('inside: opens; through a link to outside: FORBIDDEN; outside every root: untouched', async () => {
    expect(readRegularText(join(served, 'in', 't.csv'))).toBe('v\n1\n');
    expect(() => openRegularSync(join(served, 'link', 't.csv'))).toThrow(/outside the served folders/);
    expect(readRegularText(join(outside, 't.csv'))).toBe('v\n1\n');
    await expect(openTableReader(join(served, 'link', 't.csv'))).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect((await openTableReader(join(served, 'in', 't.csv'))).columns).toEqual(['v']);
  });

  it('a WebDataset shard through the link is refused', async () => {
    const read = async (): Promise<void> => {
      for await (const _ of tarGroups(join(served, 'link', 'x.tar'))) void _;
    };
    await expect(read()).rejects.toThrow(/outside the served folders/);
  });
});

describe('the WebDataset shard list and the sidecar manifest go through the checked opener', () => {
  it('a shard list through a link to outside is refused FORBIDDEN (and not sniffed as one)', () => {
    const list = join(served, 'link', 'shards.txt');
    expect(() => resolveShards(list)).toThrow(expect.objectContaining({ code: 'FORBIDDEN' }) as Error);
    expect(looksLikeShardList(list)).toBe(false);
    // Outside every root the list is the user's own: read as before.
    expect(resolveShards(join(outside, 'shards.txt'))).toEqual([join(served, 'in', 'x.tar')]);
  });

  it('a sidecar manifest that is a link to outside is not read: corrupt, with a note that tells nothing of the file', () => {
    const beton = join(served, 'in', 'd.beton');
    symlinkSync(join(outside, 'secret.json'), manifestPathFor(beton));
    const r = readSidecarManifest(beton);
    expect(r.status).toBe('corrupt');
    const note = 'note' in r ? r.note : '';
    expect(note).toMatch(/outside the served folders/);
    expect(note).not.toContain('TOP-SECRET');
  });
});
