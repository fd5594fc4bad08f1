import { spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixturePath } from '../helpers/fixtures.js';
import { startHostile, type Hostile } from '../helpers/hostile-server.js';
import { fileBytes, startServers, type RemoteServers } from '../helpers/remote-servers.js';

/*
 * Issue 28, item 2: `beton cp` writes only to a regular file (or a new one, or into a
 * folder), under a temporary name renamed at the end, and uploads only regular files.
 */
const BETON = resolve(__dirname, '../../bin/beton.js');
const dir = mkdtempSync(join(tmpdir(), 'beton-cp-local-'));
let h: Hostile;
let srv: RemoteServers;
let env: NodeJS.ProcessEnv;
let url: string;

beforeAll(async () => {
  [h, srv] = await Promise.all([startHostile(), startServers(['data'])]);
  await h.serve('images_jpg.beton', fileBytes(fixturePath('images_jpg')));
  url = `${h.origin}/ok/ok/images_jpg.beton`;
  env = { ...process.env, ...srv.env(), HOME: dir };
}, 60_000);

afterAll(async () => {
  await Promise.all([h?.stop(), srv?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

const beton = (...args: string[]): { status: number | null; stdout: string; stderr: string } =>
  spawnSync('timeout', ['-k', '5', '60', process.execPath, BETON, ...args], { env, encoding: 'utf8', cwd: dir });

function refused(r: { status: number | null; stderr: string }, what: RegExp): void {
  expect(r.status, r.stderr).toBe(1);
  expect(r.stderr).toMatch(/\[NOT_A_FILE\]/);
  expect(r.stderr).toMatch(what);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

/** The folder's entries but `keep`: nothing left behind (no temporary file). */
const others = (d: string, keep: string): string[] => readdirSync(d).filter((n) => n !== keep);

describe('beton cp URL DST: the destination', () => {
  it('a device node is refused and stays a device', async () => {
    const d = mkdtempSync(join(dir, 'dev-'));
    const node = join(d, 'null');
    const mk = spawnSync('mknod', [node, 'c', '1', '3']);
    expect(mk.status, `mknod needs root: ${mk.stderr}`).toBe(0);
    await h.log();
    refused(beton('cp', url, node), /a device/);
    expect(lstatSync(node).isCharacterDevice()).toBe(true);
    expect(others(d, 'null')).toEqual([]);
    // Refused before any request.
    expect(await h.log()).toEqual([]);
  }, 60_000);

  it('a FIFO is refused and stays a FIFO (no hang)', () => {
    const d = mkdtempSync(join(dir, 'fifo-'));
    const fifo = join(d, 'pipe');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    refused(beton('cp', url, fifo), /named pipe/);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(others(d, 'pipe')).toEqual([]);
  }, 60_000);

  it('a symbolic link is refused and left as it is', () => {
    const d = mkdtempSync(join(dir, 'link-'));
    const target = join(d, 'target');
    writeFileSync(target, 'keep');
    symlinkSync(target, join(d, 'link'));
    refused(beton('cp', url, join(d, 'link')), /symbolic link/);
    expect(readlinkSync(join(d, 'link'))).toBe(target);
    expect(readFileSync(target, 'utf8')).toBe('keep');
  }, 60_000);

  it('a folder is a directory target; a folder in the way inside it is refused', () => {
    const d = mkdtempSync(join(dir, 'dir-'));
    const r = beton('cp', url, d);
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(join(d, 'images_jpg.beton')).equals(readFileSync(fixturePath('images_jpg')))).toBe(true);
    expect(others(d, 'images_jpg.beton')).toEqual([]);
    const e = mkdtempSync(join(dir, 'dir-'));
    mkdirSync(join(e, 'images_jpg.beton'));
    refused(beton('cp', url, e), /a folder/);
    expect(lstatSync(join(e, 'images_jpg.beton')).isDirectory()).toBe(true);
  }, 60_000);

  it('a regular file is replaced by the copy', () => {
    const f = join(mkdtempSync(join(dir, 'file-')), 'x.beton');
    writeFileSync(f, 'old');
    expect(beton('cp', url, f).status).toBe(0);
    expect(readFileSync(f).equals(readFileSync(fixturePath('images_jpg')))).toBe(true);
  }, 60_000);
});

describe('beton cp SRC s3://…: the source', () => {
  it('a FIFO is refused at once (no hang), /dev/zero is refused: nothing at the key', async () => {
    const fifo = join(mkdtempSync(join(dir, 'src-')), 'pipe');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const t0 = performance.now();
    refused(beton('cp', fifo, 's3://data/from-fifo.beton'), /named pipe/);
    expect(performance.now() - t0).toBeLessThan(30_000);
    refused(beton('cp', '/dev/zero', 's3://data/from-zero.beton'), /a device/);
    expect(await srv.list('data')).toEqual([]);
  }, 90_000);
});
