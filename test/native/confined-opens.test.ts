// Issue 19 item 4: under beton serve every input opened through core/native/regular-file.ts
// is re-checked on its descriptor (core/native/confined-opens.ts). A folder inside the served
// root that is (or became, after the check) a link to outside: tables and WebDataset shards
// opened through it are refused FORBIDDEN; files inside, and paths outside every root (not
// the server's business), open as before.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confineOpensTo } from '../../core/native/confined-opens.js';
import { openRegularSync, readRegularText } from '../../core/native/regular-file.js';
import { openTableReader } from '../../core/sources/open-table.js';
import { tarGroups } from '../../core/sources/tar-samples.js';
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
