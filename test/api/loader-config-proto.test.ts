// Issue 19 item 8, the loader config: zod's z.record skips a `__proto__` key, so a pipeline
// configured for a field named `__proto__` vanished and the field got its default pipeline.
// core/api/own-record.ts keeps every user-named key; these tests fail with z.record.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseLoaderConfig } from '../../core/api/loader-config.js';
import { DatasetManifest } from '../../core/api/dataset-manifest.js';
import { ownValue } from '../../core/format/own-keys.js';
import { IntField } from '../../core/fields/int-field.js';
import { Loader } from '../../core/loader/loader.js';
import type { PipelineConfig } from '../../core/loader/outputs.js';
import { BetonService } from '../../core/services/beton-service.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-cfg-proto-'));
const file = join(dir, 'p.beton');
// `__proto__` disabled, `constructor` configured: with the key lost, `__proto__` comes back.
const configText = `{"file": ${JSON.stringify(file)}, "batchSize": 2, "pipelines": {"__proto__": null, "constructor": [{"decoder": "int"}]}}`;

beforeAll(async () => {
  const fields: Record<string, IntField> = JSON.parse('{"__proto__": 0, "constructor": 0}') as Record<string, IntField>;
  for (const k of Object.keys(fields)) Object.defineProperty(fields, k, { value: new IntField(), enumerable: true });
  const rows = [JSON.parse('{"__proto__": 1, "constructor": 2}'), JSON.parse('{"__proto__": 3, "constructor": 4}')] as Array<
    Record<string, number>
  >;
  await new DatasetWriter(file, fields, { numWorkers: 0 }).write(rows);
  writeFileSync(join(dir, 'loader.json'), configText);
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a loader config keyed by prototype names', () => {
  it('parses with every key as an own entry, and errors name the key', () => {
    const r = parseLoaderConfig(JSON.parse(configText));
    if (!r.ok) throw new Error(r.errors.join());
    expect(Object.keys(r.value.pipelines)).toEqual(['__proto__', 'constructor']);
    expect(ownValue(r.value.pipelines, '__proto__')).toBeNull();
    expect(ownValue(r.value.pipelines, 'toString')).toBeUndefined();
    const bad = parseLoaderConfig(JSON.parse('{"file": "f", "batchSize": 1, "pipelines": {"__proto__": [{"decoder": "nope"}]}}'));
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.errors.join('\n')).toMatch(/^pipelines\.__proto__\[0\]/m);
    const notObject = parseLoaderConfig({ file: 'f', batchSize: 1, pipelines: [] });
    expect(notObject.ok).toBe(false);
  });

  it('the Loader applies the configured pipeline to the field named __proto__', async () => {
    const r = parseLoaderConfig(JSON.parse(configText));
    if (!r.ok) throw new Error(r.errors.join());
    const loader = await Loader.open(file, {
      batchSize: 2,
      numWorkers: 1,
      pipelines: r.value.pipelines as Record<string, PipelineConfig>,
    });
    try {
      for await (const b of loader) {
        expect(Object.keys(b.outputs)).toEqual(['constructor']);
        expect(Array.from(b.get('constructor').data as ArrayLike<number | bigint>, Number)).toEqual([2, 4]);
      }
    } finally {
      await loader.close();
    }
  }, 30_000);

  it('beton export --loader keeps the __proto__ pipeline (python and json)', () => {
    const run = (...args: string[]): ReturnType<typeof spawnSync> =>
      spawnSync(process.execPath, [resolve(__dirname, '../../bin/beton.js'), 'export', '--loader', join(dir, 'loader.json'), ...args], {
        encoding: 'utf8',
        timeout: 60_000,
      });
    const py = run();
    expect(py.status, String(py.stderr)).toBe(0);
    expect(String(py.stdout)).toContain('"__proto__": None,');
    const js = run('--format', 'json');
    expect(js.status, String(js.stderr)).toBe(0);
    expect(String(js.stdout)).toMatch(/"__proto__": null/);
  }, 90_000);

  it('the service (export.generate) keeps it too', async () => {
    const service = new BetonService({ roots: null, host: 'electron', dbPath: join(dir, 'runs.sqlite') });
    try {
      const env = await service.call('export.generate', { loader: JSON.parse(configText) as never, format: 'python' });
      if (!env.ok) throw new Error(env.error.message);
      expect((env.value as { text: string }).text).toContain('"__proto__": None,');
    } finally {
      service.close();
    }
  });

  it('a sidecar manifest keeps label mappings for fields and classes named so', () => {
    const r = DatasetManifest.safeParse({
      format: 'beton-studio/dataset-manifest',
      version: 1,
      beton: { file: 'f', contentSha256: '0'.repeat(64), fileSize: 1, numSamples: 1 },
      classNames: null,
      labelMappings: JSON.parse('{"__proto__": {"__proto__": 0, "constructor": 1}}'),
      build: null,
      report: null,
      writtenBy: 'x',
      createdAt: 'y',
    });
    if (!r.success) throw new Error(r.error.message);
    expect(JSON.stringify(r.data.labelMappings)).toBe('{"__proto__":{"__proto__":0,"constructor":1}}');
  });
});
