import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BuildReport } from '../../core/api/build-report.js';
import { RunsDb } from '../../core/runs/runs-db.js';
import { BuildSchema, check } from '../../core/runs/validate.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-validate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// JSON.parse makes `__proto__` an own key, as a config read from a file or a request does.
const config = (): Record<string, unknown> =>
  JSON.parse('{"output":"/data/x.beton","__proto__":{"name":"__proto__","type":"int"}}') as Record<string, unknown>;
const report = { path: '/data/x.beton', numSamples: 3 };
const ownProto = (o: object): unknown => Object.getOwnPropertyDescriptor(o, '__proto__')?.value;

describe('runs validation keeps user-named keys', () => {
  it('a build config key named __proto__ survives the check as an own entry (z.record dropped it)', () => {
    const v = check(BuildSchema, { datasetId: null, config: config(), report }, 'build');
    expect(Object.keys(v.config).sort()).toEqual(['__proto__', 'output']);
    expect(ownProto(v.config)).toEqual({ name: '__proto__', type: 'int' });
    // Nothing reached a prototype.
    expect(({} as Record<string, unknown>)['name']).toBeUndefined();
  });

  it('a build config that is not an object is refused by name', () => {
    expect(() => check(BuildSchema, { datasetId: null, config: ['x'], report }, 'build')).toThrow(/invalid build: config/);
  });

  it('a recorded build lists its __proto__ key back', () => {
    const db = RunsDb.open(join(dir, 'runs.sqlite'));
    try {
      // The check reads only path and numSamples of a report (a loose object).
      db.recordBuild(null, config(), report as unknown as BuildReport);
      const [b] = db.listBuilds();
      expect(ownProto(b!.config)).toEqual({ name: '__proto__', type: 'int' });
      expect(b!.config['output']).toBe('/data/x.beton');
    } finally {
      db.close();
    }
  });
});
