import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBuildConfig, type BuildConfigInput } from '../../core/api/build-config.js';
import { buildDataset } from '../../core/app/build.js';
import type { Method, Params, Results } from '../../core/api/contract.js';
import { BetonService } from '../../core/services/beton-service.js';

const dir = mkdtempSync(join(tmpdir(), 'health-svc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Answer<M extends Method> = { ok: true; result: Results[M] } | { ok: false; error: { message: string } };
type Call = <M extends Method>(method: M, params: Params<M>) => Promise<Answer<M>>;

describe('service: datasets.sample, datasets.check, preview where', () => {
  let svc: { call: Call };
  const file = join(dir, 't.beton');
  beforeAll(async () => {
    const lines = ['id,score,name'];
    for (let i = 0; i < 100; i++) lines.push(`${i},${i / 100},n${i % 7}`);
    writeFileSync(join(dir, 't.csv'), lines.join('\n') + '\n');
    const cfg = parseBuildConfig({ source: { type: 'table', path: join(dir, 't.csv') }, output: file } as BuildConfigInput);
    if (!cfg.ok) throw new Error(cfg.errors.join('\n'));
    await buildDataset(cfg.value);
    const service = new BetonService({ roots: [dir], host: 'server', dbPath: join(dir, 'runs.sqlite') });
    svc = {
      call: async <M extends Method>(m: M, p: Params<M>): Promise<Answer<M>> => {
        const r = await service.call(m, p);
        return r.ok ? { ok: true, result: r.value as Results[M] } : { ok: false, error: r.error };
      },
    };
  });

  it('where: a float range, int values, string values; combined counts', async () => {
    const r = await svc.call('datasets.preview', { path: file, start: 0, count: 64, where: { field: 'score', min: 0.25, max: 0.3 } });
    expect(r.ok && r.result.samples.map((s) => s.index)).toEqual([25, 26, 27, 28, 29, 30]);
    expect(r.ok && r.result.where).toEqual({ field: 'score', matches: 6 });
    const v = await svc.call('datasets.preview', { path: file, start: 0, count: 64, where: { field: 'name', values: ['n3'] } });
    expect(v.ok && v.result.where?.matches).toBe(14);
    const bad = await svc.call('datasets.preview', { path: file, start: 0, count: 4, where: { field: 'nope', min: 1 } });
    expect(!bad.ok && bad.error.message).toMatch(/no field "nope"; filters apply to int, float and json fields \(id, score, name\)/);
  });

  it('datasets.sample: every value with stored size, page and offset; an index past the end is refused', async () => {
    const r = await svc.call('datasets.sample', { path: file, index: 42 });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.result.fields.map((f) => [f.name, f.value])).toEqual([
      ['id', { kind: 'text', text: '42' }],
      ['score', { kind: 'text', text: '0.42' }],
      ['name', { kind: 'text', text: '"n0"' }],
    ]);
    const name = r.result.fields[2]!;
    expect(name.storedBytes).toBeGreaterThan(0);
    expect(name.page).toBe(Math.floor(name.offset! / (8 << 20)));
    expect(r.result.fields[0]!.page).toBeNull();
    const past = await svc.call('datasets.sample', { path: file, index: 100 });
    expect(!past.ok && past.error.message).toMatch(/sample 100 does not exist \(the file has 100: 0–99\)/);
  });

  it('datasets.check: none kept, then run, then kept', async () => {
    const none = await svc.call('datasets.check', { path: file });
    expect(none.ok && none.result).toBeNull();
    const run = await svc.call('datasets.check', { path: file, run: true });
    expect(run.ok && run.result?.result.duplicates).toEqual([]);
    const kept = await svc.call('datasets.check', { path: file });
    expect(kept.ok && kept.result?.beton.numSamples).toBe(100);
  });
});
