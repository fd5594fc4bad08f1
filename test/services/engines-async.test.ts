// Issue 23: profiles.engines tries the server's Python without blocking it. With spawnSync, every
// other request of `beton serve` waited while Python imported torch. Checked by order, not time:
// the fake Python answers only once the test opens its gate, which the test does after env.info
// has answered; a blocking check could not let env.info answer first (it gives up after 20 s and
// prints nothing, so the old code fails, bounded).
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { EngineStatus } from '../../core/api/contract.js';
import { BetonService } from '../../core/services/beton-service.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-engines-async-'));
const savedPython = process.env.BETON_PYTHON;
afterAll(() => {
  if (savedPython === undefined) delete process.env.BETON_PYTHON;
  else process.env.BETON_PYTHON = savedPython;
  rmSync(dir, { recursive: true, force: true });
});

const GATE = join(dir, 'gate');
const STARTS = join(dir, 'starts');
const PYTHON = join(dir, 'python3');
writeFileSync(
  PYTHON,
  `#!/bin/sh
echo x >> '${STARTS}'
i=0
while [ ! -e '${GATE}' ]; do
  i=$((i + 1))
  [ $i -gt 400 ] && exit 1
  sleep 0.05
done
echo 3.11.9
`,
);
chmodSync(PYTHON, 0o755);

describe('profiles.engines does not block the server', () => {
  it('env.info answers while the Python check runs; the result is cached', async () => {
    process.env.BETON_PYTHON = PYTHON;
    const service = new BetonService({ roots: [dir], host: 'server' });
    try {
      const order: string[] = [];
      const engines = service.call('profiles.engines', {}).then((r) => (order.push('engines'), r));
      const env = await service.call('env.info', {});
      order.push('env');
      expect(env.ok).toBe(true);
      writeFileSync(GATE, '');
      const r = (await engines) as { ok: true; value: EngineStatus[] };
      expect(order).toEqual(['env', 'engines']);
      expect(r.value.map((e) => [e.engine, e.available])).toEqual([
        ['beton', true],
        ['ffcv', true],
        ['torch', true],
      ]);
      expect(r.value[1]!.python).toBe(PYTHON);
      // One child per engine (ffcv, torch); a second request starts none.
      const started = readFileSync(STARTS, 'utf8').trim().split('\n').length;
      expect(started).toBe(2);
      expect(await service.call('profiles.engines', {})).toEqual(r);
      expect(readFileSync(STARTS, 'utf8').trim().split('\n').length).toBe(started);
      expect(existsSync(GATE)).toBe(true);
    } finally {
      service.close();
    }
  }, 60_000);
});
