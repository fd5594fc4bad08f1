/**
 * Issue 29, item 7 (the smaller failures):
 * - `runs show` replayed a failed command's escape codes raw: now shown escaped.
 * - An export path holding a newline produced Python that does not compile: paths are
 *   written with a Python string literal writer.
 * - Mixing csv and parquet in one pattern reported "invalid UTF-8 … iconv": now the cause.
 * - `build -o s3:// --check` said the result was "kept in" a folder it then deletes.
 * The commands call the CLI's main() in this process, but the s3:// build (a real process,
 * whose endpoint is a closed port).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetWriteFile } from 'hyparquet-writer';
import { afterAll, describe, expect, it } from 'vitest';
import { pyStr } from '../../core/pipeline/python-code.js';
import { cli } from '../helpers/cli.js';
import { cliHere } from '../helpers/cli-in-process.js';
import { STACK_LINE, writeIntBeton } from '../helpers/cli-inputs.js';

const dir = mkdtempSync(join(tmpdir(), 'hardening-messages-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Whether python3 compiles `code`; the SyntaxError otherwise. */
function compiles(code: string): string {
  try {
    execFileSync('/usr/bin/python3', ['-c', 'import sys; compile(sys.stdin.read(), "x.py", "exec")'], {
      input: code,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    return 'ok';
  } catch (e) {
    return String((e as { stderr?: Buffer }).stderr ?? e)
      .trim()
      .split('\n')
      .at(-1)!;
  }
}

describe('smaller hardening items (issue 29)', () => {
  it("runs show prints a failed command's escape codes escaped, not raw", async () => {
    const db = join(dir, 'runs.sqlite');
    const cmd = `printf '\\033[2J\\033]0;pwned\\007boom\\n' >&2; exit 3`;
    const r = await cliHere(['profile', '--exec', cmd, '--db', db, '--no-gpu']);
    expect(r.status).not.toBe(null);
    const show = await cliHere(['runs', 'show', '1', '--db', db]);
    expect(show.status, show.stderr).toBe(0);
    expect(show.stdout).toContain('stderr: \\x1b[2J\\x1b]0;pwned\\x07boom');
    expect(show.stdout).not.toMatch(/[\u001b\u0007]/);
    const json = await cliHere(['runs', 'show', '1', '--db', db, '--json']);
    expect(json.stdout).not.toMatch(/[\u001b\u0007]/);
    expect(JSON.stringify(JSON.parse(json.stdout))).toContain('pwned');
  }, 90_000);

  it('export: a path with a newline, quotes, braces and non-ASCII still compiles', async () => {
    const sub = join(dir, 'we"ird\n{dir}\\ é\u2028');
    mkdirSync(sub);
    const file = join(sub, 'x.beton');
    await writeIntBeton(file, 20);
    const r = await cliHere(['export', file, '--batch-size', '8']);
    expect(r.status, r.stderr).toBe(0);
    expect(compiles(r.stdout)).toBe('ok');
    for (const s of ['a\nb', 'q"\'', '\\', '\u0000\u007f\u0085', '\u{1f600}', '\ud800', '{x}']) {
      expect(compiles(`x = ${pyStr(s)}\n`), JSON.stringify(s)).toBe('ok');
    }
    expect(execFileSync('/usr/bin/python3', ['-c', `import sys; sys.stdout.write(repr(${pyStr('a\n"\\é')}))`]).toString()).toBe(
      "'a\\n\"\\\\é'",
    );
  }, 60_000);

  it('a pattern mixing csv and parquet names the cause', async () => {
    const t = join(dir, 'mixed');
    mkdirSync(t);
    writeFileSync(join(t, 'a.csv'), 'x,y\n1,2\n');
    parquetWriteFile({
      filename: join(t, 'b.parquet'),
      columnData: [
        { name: 'x', data: [BigInt(1)] },
        { name: 'y', data: [2] },
      ],
      schema: [
        { name: 'root', num_children: 2 },
        { name: 'x', type: 'INT64', repetition_type: 'REQUIRED' },
        { name: 'y', type: 'DOUBLE', repetition_type: 'REQUIRED' },
      ],
    });
    const r = await cliHere(['build', join(t, '*'), '-o', join(dir, 'mixed.beton'), '--workers', '0']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/names files of different formats: .*b\.parquet is parquet, but .*a\.csv is csv/);
    expect(r.stderr).not.toMatch(/UTF-8|iconv/);
    expect(r.stderr).not.toMatch(STACK_LINE);
  }, 60_000);

  it('build -o s3:// --check does not claim the check is kept in the deleted staging folder', () => {
    const src = join(dir, 'rows.csv');
    writeFileSync(src, 'x,y\n' + Array.from({ length: 50 }, (_, i) => `${i},${i / 2}`).join('\n') + '\n');
    // Main (remote-stream, streaming uploads) now refuses the combination up front, saying why,
    // before any request: no S3 server needed. A build that went on would fail on the closed
    // port (and not print the refusal).
    const env = {
      AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:1',
      AWS_ACCESS_KEY_ID: 'none',
      AWS_SECRET_ACCESS_KEY: 'none',
      AWS_REGION: 'us-east-1',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    };
    const r = cli(['build', src, '-o', 's3://out/rows.beton', '--check'], { timeoutMs: 120_000, env });
    expect(r.status).not.toBe(0);
    expect(r.stdout + r.stderr).not.toMatch(/kept in/);
    expect(r.stderr).toMatch(/--check reads the output file/);
  }, 150_000);
});
