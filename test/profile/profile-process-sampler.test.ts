import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createProcessSampler,
  descendants,
  pageCacheResidency,
  parseIoReadBytes,
  parseStatCpuTicks,
  parseStatPpid,
  parseVmRssBytes,
  processTree,
} from '../../core/profile/sampling/process-sampler.js';
import { parseFincore } from '../../core/profile/sampling/page-cache-residency.js';
import { sleep, withPath } from './profile-fake-gpu.js';

const linux = process.platform === 'linux';
const dir = mkdtempSync(join(tmpdir(), 'beton-proc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('process sampler: parsers', () => {
  it('reads read_bytes, VmRSS and the parent pid', () => {
    expect(parseIoReadBytes('rchar: 6976\nwchar: 0\nsyscr: 10\nread_bytes: 40960\nwrite_bytes: 0\n')).toBe(40960);
    expect(parseIoReadBytes('rchar: 1\n')).toBeNull();
    expect(parseVmRssBytes('Name:\tnode\nVmRSS:\t    1724 kB\nRssAnon:\t 112 kB\n')).toBe(1724 * 1024);
    expect(parseVmRssBytes('Name:\tkthreadd\n')).toBeNull();
    // a command name with spaces and parentheses must not shift the fields
    expect(parseStatPpid('4242 (my (odd) name) S 77 4242 4242 0 -1 4194304')).toBe(77);
    expect(parseStatPpid('garbage')).toBeNull();
  });

  it('reads the CPU ticks of a stat line: utime + stime + cutime + cstime, past an odd command name', () => {
    // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime …
    expect(parseStatCpuTicks('4242 (my (odd) name) S 77 4242 4242 0 -1 4194304 10 0 0 0 150 25 7 3 20 0 1')).toBe(185);
    expect(parseStatCpuTicks('4242 (x) S 77')).toBeNull();
    expect(parseStatCpuTicks('garbage')).toBeNull();
  });

  it('walks a process tree from a parent table', () => {
    const parents = new Map([
      [1, 0],
      [10, 1],
      [11, 10],
      [12, 10],
      [13, 11],
      [20, 1],
    ]);
    expect(descendants(10, parents).sort((a, b) => a - b)).toEqual([10, 11, 12, 13]);
    expect(descendants(99, parents)).toEqual([99]);
  });

  it('parses fincore output into a fraction', () => {
    expect(parseFincore('4096 1490\n')).toBe(1); // a partial last page counts whole
    expect(parseFincore('  8192 16384')).toBe(0.5);
    expect(parseFincore('0 0\n')).toBe(1);
    expect(parseFincore('')).toBeNull();
    expect(parseFincore('abc def')).toBeNull();
  });
});

describe('process sampler: live', () => {
  it('samples our RSS and storage reads', async () => {
    const s = await createProcessSampler();
    const r = await s.sample();
    expect(r.rssBytes).toBeGreaterThan(10 * 1024 * 1024);
    // Our own CPU time, between two readings around a busy loop of ~50 ms.
    const until = performance.now() + 50;
    while (performance.now() < until);
    expect((await s.sample()).cpuMs).toBeGreaterThan(10); // shared machines steal some of it
    if (linux) expect(r.diskReadBytes).toBeGreaterThanOrEqual(0);
    else expect(r.diskReadBytes).toBeNull();
  });

  it.runIf(linux)('samples a child process tree: RSS of every member, null once it is gone', async () => {
    // a child holding ~64 MiB that starts a grandchild holding ~64 MiB too
    const hold = 'const b=Buffer.alloc(64<<20,1);setInterval(()=>b[0]++,1000);';
    const code = `${hold}require('child_process').spawn(process.execPath,['-e',${JSON.stringify(hold)}],{stdio:'inherit'});`;
    const child = spawn(process.execPath, ['-e', code], { stdio: 'ignore', detached: true });
    try {
      let tree: number[] = [];
      for (let i = 0; i < 50 && tree.length < 2; i++) {
        await sleep(100);
        tree = await processTree(child.pid!);
      }
      expect(tree[0]).toBe(child.pid);
      expect(tree.length).toBe(2);
      const s = await createProcessSampler({ pid: child.pid! });
      // both must have started and filled their buffers: slow on a loaded machine
      let r = await s.sample();
      for (let i = 0; i < 100 && (r.rssBytes ?? 0) <= 2 * 64 * 1024 * 1024; i++) {
        await sleep(100);
        r = await s.sample();
      }
      expect(r.rssBytes).toBeGreaterThan(2 * 64 * 1024 * 1024);
      expect(r.diskReadBytes).toBeGreaterThanOrEqual(0);
      const exited = new Promise((res) => child.once('exit', res));
      process.kill(-child.pid!, 'SIGKILL');
      await exited;
      await sleep(100);
      expect(await processTree(child.pid!)).toEqual([]);
      expect(await s.sample()).toEqual({ rssBytes: null, diskReadBytes: null, cpuMs: null });
    } finally {
      // only while it runs: once reaped, its pid (and group id) may belong to someone else
      if (child.exitCode == null && child.signalCode == null) process.kill(-child.pid!, 'SIGKILL');
    }
  });

  it('tells page-cache residency with mincore in the addon, or fincore, null without either', async () => {
    const file = join(dir, 'data.bin');
    writeFileSync(file, Buffer.alloc(1 << 20, 7)); // just written: in the page cache
    const hasFincore = spawnSync('fincore', ['--version']).status === 0;
    expect(await pageCacheResidency(file)).toBeGreaterThan(0.5);
    if (hasFincore) expect(await pageCacheResidency(file, { native: false })).toBeGreaterThan(0.5);
    // Dropped from the cache (dd's nocache = posix_fadvise DONTNEED, after a sync): both ways see it go.
    spawnSync('sync', [file]);
    const dropped = spawnSync('dd', [`if=${file}`, 'iflag=nocache', 'count=0'], { stdio: 'ignore' }).status === 0;
    if (dropped && linux) {
      expect(await pageCacheResidency(file)).toBeLessThan(0.5);
      if (hasFincore) expect(await pageCacheResidency(file, { native: false })).toBeLessThan(0.5);
    }
    expect(await pageCacheResidency(join(dir, 'missing.bin'))).toBeNull();
    expect(await pageCacheResidency(join(dir, 'missing.bin'), { native: false })).toBeNull();
    const empty = mkdtempSync(join(dir, 'empty-'));
    expect(await withPath(empty, () => pageCacheResidency(file, { native: false }))).toBeNull();
  });
});
