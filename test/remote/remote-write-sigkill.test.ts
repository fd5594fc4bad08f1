import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killS3Build } from '../helpers/killed-s3-build.js';
import { startServers, type RemoteServers } from '../helpers/remote-servers.js';

/*
 * Slow tier (test/tiers.ts): a build to s3:// killed with SIGKILL (no handler runs) leaves no
 * object. remote-write.test.ts keeps the SIGTERM case fast; remote-stream's kill loops signal
 * uploads in every phase.
 */
const dir = mkdtempSync(join(tmpdir(), 'beton-remote-write-sigkill-'));
let srv: RemoteServers;

beforeAll(async () => {
  srv = await startServers(['out']);
}, 60_000);

afterAll(async () => {
  await srv?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('writing to s3://, killed', () => {
  it('a build killed with SIGKILL leaves no object at the key', async () => {
    await killS3Build(dir, { ...process.env, ...srv.env() }, 'SIGKILL', 's3://out/killed-SIGKILL.beton');
    expect(await srv.get('out', 'killed-SIGKILL.beton')).toBeNull();
    expect(await srv.list('out')).not.toContain('killed-SIGKILL.beton');
  }, 120_000);
});
