// The profiler's answer against constructed bottlenecks (issue 27): real runs through the CLI
// (`beton profile … --json`), each a few seconds, each asserting answer.bottleneck and the
// first action. The machine is shared: any run may see other processes' CPU, and then the
// answer must say `contention` first — so each case asserts what is necessarily true: either
// the constructed bottleneck and its first action, or contention first and the constructed
// bottleneck's action right behind it. The contention cases add CPU hogs of their own, outside
// the loader's process tree, and must always say contention.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdirSync, mkdtempSync, openSync, readSync, closeSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnswerAction, ProfileAnswer } from '../../core/api/profile-answer.js';
import type { ProfileRun } from '../../core/api/profile-model.js';
import { actionCommand } from '../../core/profile/verdict/action-command.js';
import { ROOT, cliAsync } from '../helpers/cli.js';
import { requires } from '../helpers/requires.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-answer-'));
const db = join(dir, 'runs.sqlite');
const jpgSrc = join(dir, 'jpg-src');
const jpg = join(dir, 'jpg.beton');
const raw = join(dir, 'raw.beton');
const PY = '/usr/bin/python3';
const HAVE_TORCH = spawnSync(PY, ['-c', 'import torch, torchvision'], { timeout: 60_000 }).status === 0;

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Noisy images (JPEG decodes slowly when it has detail): `n` per class, two classes. */
async function imageFolder(root: string, n: number, side: number, format: 'jpg' | 'png'): Promise<void> {
  for (const c of ['a', 'b']) {
    mkdirSync(join(root, c), { recursive: true });
    for (let i = 0; i < n; i++) {
      const px = Buffer.alloc(side * side * 3);
      for (let j = 0; j < px.length; j++) px[j] = (j * 2654435761 + i * 97 + (c === 'b' ? 13 : 0)) >>> 24;
      const img = sharp(px, { raw: { width: side, height: side, channels: 3 } });
      await (format === 'jpg' ? img.jpeg({ quality: 95 }) : img.png({ compressionLevel: 0 })).toFile(join(root, c, `${i}.${format}`));
    }
  }
}

async function run(args: string[], timeoutMs = 120_000): Promise<{ run: ProfileRun & { id: number }; stderr: string }> {
  const r = await cliAsync(['profile', ...args, '--db', db, '--json', '--no-gpu'], { timeoutMs });
  expect(r.status, r.stderr).toBe(0);
  return { run: JSON.parse(r.stdout) as ProfileRun & { id: number }, stderr: r.stderr };
}

/**
 * The constructed bottleneck and its first action — or, when other processes took over 20% of
 * the CPUs, contention first and (where the bottleneck does not depend on the CPU the run got:
 * `cpuBound` false) the same bottleneck and action right after "profile again idle". A
 * CPU-bound case under heavy contention is contention and nothing more can be said.
 */
function expectAnswer(a: ProfileAnswer, bottleneck: ProfileAnswer['bottleneck'], first: (x: AnswerAction) => void, cpuBound = false): void {
  expect(a.actions.length).toBeGreaterThan(0);
  for (const x of a.actions) expect(actionCommand(x)).toMatch(/\S/);
  if (a.contended) {
    expect(a.bottleneck).toBe('contention');
    expect(a.actions[0]!.id).toBe('reprofile-idle');
    if (cpuBound) return;
    expect(a.summary).toContain(`the rules say ${bottleneck}`);
    first(a.actions[1]!);
  } else {
    expect(a.bottleneck).toBe(bottleneck);
    first(a.actions[0]!);
  }
}

/** Busy-loop processes outside the loader's tree (children of this test process, not of the CLI). */
function hogs(n: number): { stop: () => void } {
  const ps: ChildProcess[] = [];
  for (let i = 0; i < n; i++) ps.push(spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
  return { stop: () => ps.forEach((p) => p.kill('SIGKILL')) };
}

/** A training script with the probe: each step waits `waitMs` for its batch, then computes `stepMs` (sleeping, no CPU). */
function probeScript(name: string, body: string): string {
  const file = join(dir, name);
  writeFileSync(
    file,
    `import sys, time\nsys.path.insert(0, ${JSON.stringify(join(ROOT, 'python'))})\nfrom beton_probe import watch\n${body}\n`,
  );
  return file;
}

const loaderScript = (waitExpr: string, stepMs: number, steps = 60): string => `
def batches(w):
    d = ${waitExpr}
    for _ in range(${steps}):
        if d:
            time.sleep(d / 1000)
        yield [0] * 16
w = int(sys.argv[1]) if len(sys.argv) > 1 else 1
for b in watch(batches(w), batch_size=16):
    time.sleep(${stepMs} / 1000)
`;

beforeAll(async () => {
  await imageFolder(jpgSrc, 24, 320, 'jpg');
  const b1 = await cliAsync(['build', jpgSrc, '-o', jpg, '--write-mode', 'jpg', '--page-size', '2097152'], { timeoutMs: 120_000 });
  expect(b1.status, b1.stderr).toBe(0);
  const rawSrc = join(dir, 'raw-src');
  await imageFolder(rawSrc, 160, 192, 'png');
  const b2 = await cliAsync(['build', rawSrc, '-o', raw, '--write-mode', 'raw', '--page-size', '2097152'], { timeoutMs: 120_000 });
  expect(b2.status, b2.stderr).toBe(0);
}, 240_000);

describe('the answer names the bottleneck a run was built to have', () => {
  it('decode-bound: JPEG with one worker — decode, and the first action sweeps more workers', async () => {
    const { run: r } = await run([jpg, '--workers', '1', '--batch-sizes', '8', '--seconds', '1.5', '--decoder', 'rrc:160']);
    const a = r.answer!;
    expect(a.engine).toBe('beton');
    expect(a.best.point).toBe(0);
    expect(a.best.images_per_sec).toBe(r.points[0]!.imagesPerSec);
    expectAnswer(
      a,
      'decode',
      (x) => {
        expect(x.id).toBe('resweep');
        expect((x.params.workers as number[])[0]).toBe(1);
        expect((x.params.workers as number[]).length).toBeGreaterThan(1);
      },
      true,
    );
  }, 120_000);

  it('contention in a sweep: two CPU hogs outside the loader — contention, profile again idle first', async () => {
    const h = hogs(2);
    try {
      const { run: r } = await run([jpg, '--workers', '1', '--batch-sizes', '8', '--seconds', '1.5']);
      const a = r.answer!;
      expect(a.contended).toBe(true);
      expect(a.bottleneck).toBe('contention');
      expect(a.actions[0]!.id).toBe('reprofile-idle');
      expect(a.evidence.join(' ')).toMatch(/other processes \d+%/);
    } finally {
      h.stop();
    }
  }, 120_000);

  it('contention in an exec run: hogs beside a training command — contention, run again idle first', async () => {
    const script = probeScript('contended.py', loaderScript('5', 5, 150));
    const h = hogs(2);
    try {
      const { run: r } = await run(['--exec', `python3 ${script}`]);
      const a = r.answer!;
      expect(a.engine).toBe('exec');
      expect(a.contended).toBe(true);
      expect(a.bottleneck).toBe('contention');
      expect(a.actions[0]!.id).toBe('reprofile-idle');
      expect(actionCommand(a.actions[0]!)).toContain('beton profile --exec');
    } finally {
      h.stop();
    }
  }, 120_000);

  it('network-bound: a loopback HTTP server that delays each GET by 150 ms — network, fetch further ahead first', async () => {
    // The raw file (about 35 MiB in 2 MiB pages) with a 4 MiB page pool: random batches keep fetching.
    const bytes = statSync(raw).size;
    const fd = openSync(raw, 'r');
    const server: Server = createServer((req, res) => {
      const m = /bytes=(\d+)-(\d+)?/.exec(req.headers.range ?? '');
      const start = m ? Number(m[1]) : 0;
      const end = m && m[2] ? Math.min(Number(m[2]), bytes - 1) : bytes - 1;
      setTimeout(() => {
        const buf = Buffer.alloc(end - start + 1);
        readSync(fd, buf, 0, buf.length, start);
        res.writeHead(m ? 206 : 200, {
          'content-length': buf.length,
          'accept-ranges': 'bytes',
          ...(m ? { 'content-range': `bytes ${start}-${end}/${bytes}` } : {}),
        });
        if (req.method === 'HEAD') res.end();
        else res.end(buf);
      }, 150);
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const port = (server.address() as { port: number }).port;
    try {
      const { run: r } = await run([
        `http://127.0.0.1:${port}/raw.beton`,
        '--workers',
        '2',
        '--batch-sizes',
        '2',
        '--seconds',
        '2',
        '--decoder',
        'simple',
        '--no-flip',
        '--process-cache',
        String(4 << 20),
      ]);
      const a = r.answer!;
      expect(r.points[0]!.network!.requests).toBeGreaterThan(0);
      expectAnswer(a, 'network', (x) => {
        expect(x.id).toBe('resweep');
        expect(x.params.batchesAhead).toBe(6);
      });
    } finally {
      await new Promise<void>((ok) => server.close(() => ok()));
      closeSync(fd);
    }
  }, 120_000);

  it('storage-bound: a process cache smaller than the working set under random order — storage, sweep with the OS cache first', async () => {
    const { run: r } = await run([
      raw,
      '--workers',
      '1',
      '--batch-sizes',
      '4',
      '--seconds',
      '1.5',
      '--os-cache',
      'off',
      '--process-cache',
      String(8 << 20),
      '--decoder',
      'simple',
      '--no-flip',
    ]);
    const a = r.answer!;
    expect(r.points[0]!.cacheReadBytes).toBeGreaterThan(0);
    expectAnswer(a, 'storage', (x) => {
      expect(x.id).toBe('resweep');
      expect(x.params.osCache).toEqual([true, false]);
    });
  }, 120_000);

  it('exec input-bound: the probe sees 30 ms waits for a 5 ms step — input, profile the loader first', async () => {
    const script = probeScript('input.py', loaderScript('30', 5));
    const { run: r } = await run(['--exec', `python3 ${script}`]);
    expect(r.verdict!.exec!.waitShare).toBeGreaterThan(0.5);
    expectAnswer(r.answer!, 'input', (x) => expect(x.id).toBe('profile-loader'));
  }, 120_000);

  it('exec compute-bound: no wait, 30 ms steps — compute, sweep the command over workers first', async () => {
    const script = probeScript('compute.py', loaderScript('0', 30));
    const { run: r } = await run(['--exec', `python3 ${script}`]);
    expect(r.verdict!.exec!.waitShare).toBeLessThan(0.05);
    expectAnswer(r.answer!, 'compute', (x) => {
      expect(x.id).toBe('exec-sweep');
      expect(x.label).toMatch(/\{workers\}/); // the command names no placeholder yet: the label says where to put one
    });
  }, 120_000);

  it('balanced: a step that waits about an eighth of its time — balanced, sweep the command over workers first', async () => {
    const script = probeScript('balanced.py', loaderScript('5', 30));
    const { run: r } = await run(['--exec', `python3 ${script}`]);
    const share = r.verdict!.exec!.waitShare!;
    expect(share).toBeGreaterThan(0.05);
    expect(share).toBeLessThan(0.2);
    expectAnswer(r.answer!, 'balanced', (x) => expect(x.id).toBe('exec-sweep'));
  }, 120_000);

  it('a training-command sweep over --workers 1,2 names the fewest workers whose step does not wait', async () => {
    // 1 worker: each batch takes 40 ms to arrive; 2 workers: none (the loader keeps up).
    const script = probeScript('grid.py', loaderScript('(40 if w == 1 else 0)', 25, 40));
    const { run: r, stderr } = await run(['--exec', `python3 ${script} {workers}`, '--workers', '1,2', '--seconds', '20']);
    expect(stderr).toMatch(/running point 1 of 2: 1 worker/);
    expect(r.kind).toBe('exec');
    expect(r.points.map((p) => p.config.workers)).toEqual([1, 2]);
    expect(r.points[0]!.exec!.command).toBe(`python3 ${script} 1`);
    expect(r.points[0]!.exec!.waitShare).toBeGreaterThan(0.5);
    expect(r.points[1]!.exec!.waitShare).toBeLessThan(0.05);
    const a = r.answer!;
    expect(a.best.point).toBe(1);
    expect(a.summary).toMatch(/^2 workers are the fewest/);
    const first = a.contended ? a.actions[1]! : a.actions[0]!;
    expect(first.id).toBe('run-command');
    expect(actionCommand(first)).toBe(`python3 ${script} 2`);
  }, 120_000);
});

describe.skipIf(!requires('torch in /usr/bin/python3', 'pip install torch torchvision', HAVE_TORCH))(
  'engines that do not lose a run',
  () => {
    it('the torch engine over a folder with a corrupt JPEG: the run completes with every point and an answer', async () => {
      const src = join(dir, 'torch-src');
      await imageFolder(src, 8, 200, 'jpg');
      writeFileSync(join(src, 'a', 'broken.jpg'), Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4, 5]));
      const { run: r, stderr } = await run(
        [
          jpg,
          '--engine',
          'beton,torch',
          '--source',
          src,
          '--python',
          PY,
          '--workers',
          '1',
          '--batch-sizes',
          '8',
          '--seconds',
          '1',
          '--no-stages',
        ],
        240_000,
      );
      expect(r.status).toBe('ok');
      expect(r.points.map((p) => p.config.engine)).toEqual(['beton', 'torch']);
      expect(stderr).toMatch(/note: the torch engine skipped unreadable .*broken\.jpg/);
      const a = r.answer!;
      expect(a.engine).toBe('torch');
      expect(a.best.point).toBe(1);
      expect(Object.keys(a.engines).sort()).toEqual(['beton', 'torch']);
    }, 240_000);

    it('an engine that fails is one line; the other engine keeps its points and the answer is about it', async () => {
      const src = join(dir, 'all-broken');
      mkdirSync(join(src, 'a'), { recursive: true });
      for (let i = 0; i < 10; i++) writeFileSync(join(src, 'a', `${i}.jpg`), Buffer.from([0xff, 0xd8, 0xff, 0xe0, i]));
      const { run: r, stderr } = await run(
        [
          jpg,
          '--engine',
          'beton,torch',
          '--source',
          src,
          '--python',
          PY,
          '--workers',
          '1',
          '--batch-sizes',
          '8',
          '--seconds',
          '1',
          '--no-stages',
        ],
        240_000,
      );
      expect(r.status).toBe('ok');
      expect(stderr).toMatch(/the torch engine failed after 0 points: .*\(the other engines go on/);
      expect(stderr).not.toMatch(/Traceback/);
      expect(r.engineFailures![0]!.engine).toBe('torch');
      expect(r.points.map((p) => p.config.engine)).toEqual(['beton']);
      expect(r.answer!.engine).toBe('beton');
      expect(r.answer!.evidence.join(' ')).toMatch(/torch DataLoader engine failed/);
    }, 240_000);
  },
);
