/**
 * Setup file of the node project (vitest.config.ts), whose test files share one process per
 * worker (`isolate: false`): a file must leave process.env as it found it, or the files after
 * it in the same worker run under its settings (a FORCE_COLOR left set turns a child's plain
 * output into coloured text; an S3 endpoint left set points the next file's reads at a server
 * that has closed). After each file this restores what changed — the values, and the process's
 * own env object where a file replaced it with a copy (a copy is not inherited by native code
 * reading getenv) — and fails the file naming the keys it left changed.
 */
import { afterAll, beforeAll } from 'vitest';

const slot = globalThis as { __betonProcessEnv?: NodeJS.ProcessEnv };
/** The process's own env object, as the first file of this worker found it. */
const ownEnv = (slot.__betonProcessEnv ??= process.env);
let before: Record<string, string | undefined> = {};
/**
 * Set once per process when a library first loads, not by a test: sharp sets libvips' home;
 * core/remote/s3-client.ts silences the AWS SDK's Node-version warning.
 */
const SET_BY_LIBRARIES = new Set(['VIPSHOME', 'AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED']);

beforeAll(() => {
  before = { ...process.env };
});

afterAll(() => {
  const now = process.env;
  const keys = new Set([...Object.keys(before), ...Object.keys(now)]);
  const changed = [...keys].filter((k) => before[k] !== now[k] && !SET_BY_LIBRARIES.has(k));
  const replaced = now !== ownEnv;
  if (replaced) process.env = ownEnv;
  for (const k of keys) {
    if (SET_BY_LIBRARIES.has(k)) continue;
    const v = before[k];
    if (v === undefined) delete ownEnv[k];
    else ownEnv[k] = v;
  }
  if (replaced)
    throw new Error(
      'this file replaced process.env with another object: restore values in place (test/helpers/restore-env.ts), the next files of this worker share the process',
    );
  if (changed.length)
    throw new Error(
      `this file left process.env changed (${changed.join(', ')}): restore what it sets (vi.stubEnv + vi.unstubAllEnvs, or save and restore), the next files of this worker share the process`,
    );
});
