import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixturePath } from '../helpers/fixtures.js';

const BETON = resolve(__dirname, '../../bin/beton.js');

describe('beton as a Unix filter', () => {
  it('a reader that closes the pipe early (dump | head -n 1) ends the command quietly with 0', () => {
    const script = `"${process.execPath}" "${BETON}" dump "${fixturePath('images_jpg')}" | head -c 64 >/dev/null; echo "rc=\${PIPESTATUS[0]}"`;
    const r = spawnSync('bash', ['-c', script], { encoding: 'utf8' });
    expect(r.stdout.trim(), r.stderr).toBe('rc=0');
    expect(r.stderr).toBe('');
  });
});
