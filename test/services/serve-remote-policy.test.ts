import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixturePath } from '../helpers/fixtures.js';
import { startHostile, type Hostile } from '../helpers/hostile-server.js';
import { fileBytes } from '../helpers/remote-servers.js';
import { startServe, type ServeChild } from '../helpers/serve-child.js';

/*
 * Issue 28, items 1 and 6: a real `beton serve --allow-remote http://127.0.0.1:P/ok/` in a
 * child process against a hostile range server. The prefix must hold: no URL form reaches
 * outside it (the server logs no request), and no redirect leads outside it.
 */
const base = mkdtempSync(join(tmpdir(), 'beton-serve-policy-'));
let h: Hostile;
let serve: ServeChild;
const NAME = 'images_jpg.beton';

beforeAll(async () => {
  h = await startHostile();
  await h.serve(NAME, fileBytes(fixturePath('images_jpg')));
  mkdirSync(join(base, 'served'));
  serve = await startServe(join(base, 'served'), join(base, 'runs.sqlite'), ['--allow-remote', `${h.origin}/ok/`]);
}, 90_000);

afterAll(async () => {
  await serve?.stop();
  await h?.stop();
  rmSync(base, { recursive: true, force: true });
});

describe('beton serve --allow-remote: the prefix holds', () => {
  it('a URL under the prefix opens', async () => {
    const r = await serve.call('datasets.inspect', { path: `${h.origin}/ok/ok/${NAME}` }, 30_000);
    expect(r.status, r.message).toBe(200);
  }, 60_000);

  it('encoded dots, backslashes, a TAB inside .., userinfo: BAD_REQUEST; a look-alike prefix: FORBIDDEN; no request made', async () => {
    const o = h.origin;
    await h.log();
    const cases: Array<[string, string]> = [
      [`${o}/ok/%2e%2e/secret/ok/${NAME}`, 'BAD_REQUEST'],
      [`${o}/ok/%2E%2E/secret/ok/${NAME}`, 'BAD_REQUEST'],
      [`${o}/ok/x\\..\\..\\secret\\ok\\${NAME}`, 'BAD_REQUEST'],
      [`${o}/ok/.\t./secret/ok/${NAME}`, 'BAD_REQUEST'],
      [`${o}/ok/..%2fsecret/ok/${NAME}`, 'BAD_REQUEST'],
      [`http://u@${o.slice(7)}/ok/ok/${NAME}`, 'BAD_REQUEST'],
      [`${o}/okx/ok/${NAME}`, 'FORBIDDEN'],
      [`${o}/secret/ok/${NAME}`, 'FORBIDDEN'],
    ];
    for (const [path, code] of cases) {
      for (const method of ['datasets.inspect', 'datasets.sample']) {
        const r = await serve.call(method, method === 'datasets.sample' ? { path, index: 0 } : { path }, 30_000);
        expect(r.code, `${method} ${JSON.stringify(path)}: ${r.message}`).toBe(code);
      }
    }
    expect(await h.log()).toEqual([]);
  }, 90_000);

  it('a redirect out of the prefix (same host) is refused and named; nothing outside is fetched', async () => {
    await h.log();
    for (const mode of ['redirect-out', 'redirect-dots']) {
      const r = await serve.call('datasets.sample', { path: `${h.origin}/ok/${mode}/${NAME}`, index: 0 }, 30_000);
      expect(r.status, r.message).not.toBe(200);
      expect(r.message).toMatch(/redirect/);
    }
    expect((await h.log()).filter((l) => l.includes('/secret/'))).toEqual([]);
  }, 60_000);

  it('checks.start on a URL says the health check is local-only', async () => {
    const r = await serve.call('checks.start', { path: `${h.origin}/ok/ok/${NAME}` });
    expect(r.code).toBe('BAD_REQUEST');
    expect(r.message).toMatch(/local files only.*beton cp/);
  }, 30_000);
});
