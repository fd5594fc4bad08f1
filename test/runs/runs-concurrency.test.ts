/**
 * Several processes on one runs database at once (slow tier, test/tiers.ts: races among
 * child processes, ~18 s quiet). Four processes open one fresh file at the same instant (the
 * WAL switch is retried while busy); two save 200 runs each while a third connection reads.
 * runs.test.ts keeps the single-process database and CLI cases fast.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../core/runs/connection.js';
import { RunsDb } from '../../core/runs/runs-db.js';
import { countRows } from '../helpers/sqlite-count.js';

const ROOT = resolve(__dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'beton-runs-concurrency-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const freshPath = (): string => join(dir, `db${++n}`, 'runs.sqlite');

// ---------- two processes writing at once ----------

const CHILD = `
import { RunsDb } from ${JSON.stringify(pathToFileURL(join(ROOT, 'core/runs/runs-db.ts')).href)};
const [file, tag, count] = process.argv.slice(2);
const machine = { hostname: 'host-' + tag, cpuModel: 'cpu', cores: 2, ramBytes: 1e9, os: 'linux', node: process.version, gpus: [] };
const dataset = { path: '/data/' + tag + '.beton', sizeBytes: 1, headerSha256: 'ef'.repeat(32), numSamples: 10, schema: [] };
const plan = { file: dataset.path, workers: [1, 2], batchSizes: [32], orders: ['random'], osCache: [true], decoder: 'simple', flip: false, secondsPerPoint: 1, warmupBatches: 1 };
const pt = (index, w) => ({ index, config: { workers: w, batchSize: 32, order: 'random', osCache: true }, images: 100, seconds: 1, imagesPerSec: 100 * w, batchesPerSec: 3, waitP50Ms: 1, waitP95Ms: 2, workerBusyMsPerBatch: 3, cpuPerCore: [0.5], rssPeakBytes: 1e6, diskReadBytes: 0, pageCacheResident: null, gpuUtilMean: null });
const samples = Array.from({ length: 25 }, (_, i) => ({ t: i * 250, point: i % 2, imagesPerSec: 100 + i, cpuPerCore: [0.5, 0.25], rssBytes: 1e6 + i, diskReadBytes: i, gpus: [] }));
process.stdout.write('ready\\n');
await new Promise((r) => process.stdin.once('data', r));
process.stdin.pause();
const db = RunsDb.open(file);
const t0 = Date.now();
for (let i = 0; i < Number(count); i++) {
  const startedAt = new Date(Date.UTC(2025, 0, 1, 0, 0, i)).toISOString();
  if (i % 2 === 0) {
    db.saveRun({ kind: 'sweep', startedAt, finishedAt: startedAt, status: 'ok', plan, machine, dataset, points: [pt(0, 1), pt(1, 2)], samples, verdict: null });
  } else {
    const id = db.startRun({ kind: 'sweep', startedAt, plan, machine, dataset });
    db.addPoint(id, pt(0, 1));
    db.addSamples(id, samples.slice(0, 12));
    db.addPoint(id, pt(1, 2));
    db.addSamples(id, samples.slice(12));
    db.finishRun(id, 'ok', { kind: 'balanced', summary: tag, evidence: [], advice: [] });
  }
}
db.close();
process.stdout.write(JSON.stringify({ tag, ms: Date.now() - t0 }) + '\\n');
`;

describe('RunsDb: concurrent writers', () => {
  it('four processes opening one fresh file at the same instant all succeed (WAL switch retried while busy)', async () => {
    const script = join(dir, 'opener-child.mts');
    writeFileSync(
      script,
      `import { RunsDb } from ${JSON.stringify(pathToFileURL(join(ROOT, 'core/runs/runs-db.ts')).href)};
const [file, at] = process.argv.slice(2);
while (Date.now() < Number(at)) {}
const db = RunsDb.open(file);
process.stdout.write(db.journalMode + ' ' + db.schemaVersion);
db.close();
`,
    );
    // Three rounds: without the retry, about 1 open in 20 failed with SQLITE_BUSY here.
    for (let round = 0; round < 3; round++) {
      const path = freshPath();
      const at = Date.now() + 2500; // every child is started and spinning by then
      const results = await Promise.all(
        [0, 1, 2, 3].map(
          () =>
            new Promise<{ code: number | null; out: string; err: string }>((res) => {
              const child = spawn(process.execPath, ['--import', 'tsx', script, path, String(at)], { cwd: ROOT });
              let out = '';
              let err = '';
              child.stdout.on('data', (d: Buffer) => (out += d.toString()));
              child.stderr.on('data', (d: Buffer) => (err += d.toString()));
              child.on('close', (code) => res({ code, out, err }));
            }),
        ),
      );
      for (const r of results) {
        expect(r.code, r.err).toBe(0);
        expect(r.out).toBe(`wal ${SCHEMA_VERSION}`);
      }
    }
  });

  it('two processes each saving 200 runs into one fresh file at once: no errors, 400 runs, integrity ok', async () => {
    const script = join(dir, 'writer-child.mts');
    writeFileSync(script, CHILD);
    const path = freshPath();
    const PER = 200;
    const children = ['a', 'b'].map((tag) => {
      const child = spawn(process.execPath, ['--import', 'tsx', script, path, tag, String(PER)], {
        cwd: ROOT,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const ready = new Promise<void>((res) => child.stdout.on('data', () => stdout.includes('ready') && res()));
      const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((res) =>
        child.on('close', (code) => res({ code, stdout, stderr })),
      );
      return { child, ready, done };
    });
    await Promise.all(children.map((c) => c.ready));
    for (const c of children) c.child.stdin.end('go\n');
    // Meanwhile a third connection (the app) reads, as the UI would.
    let reads = 0;
    let readError: unknown = null;
    const reader = setInterval(() => {
      if (!existsSync(path)) return;
      try {
        const db = RunsDb.open(path);
        db.listRuns({ limit: 5 });
        db.close();
        reads++;
      } catch (e) {
        readError = e;
      }
    }, 40);
    const results = await Promise.all(children.map((c) => c.done));
    clearInterval(reader);
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    for (const r of results) expect(r.stderr).toBe('');
    expect(readError).toBeNull();
    expect(reads).toBeGreaterThan(0);

    const db = RunsDb.open(path);
    const runs = db.listRuns();
    expect(runs).toHaveLength(2 * PER);
    expect(runs.filter((r) => r.hostname === 'host-a')).toHaveLength(PER);
    expect(runs.every((r) => r.status === 'ok' && r.points === 2)).toBe(true);
    expect(db.integrityCheck()).toBe('ok');
    db.close();
    expect(countRows(path, 'samples')).toBe(2 * PER * 25);
    expect(countRows(path, 'machines')).toBe(2);
    const raw = new Database(path, { readonly: true });
    expect(raw.pragma('foreign_key_check')).toEqual([]);
    raw.close();
  });
});
