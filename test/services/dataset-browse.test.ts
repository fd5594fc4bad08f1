/**
 * Browsing a dataset through the service (issue 14, feature 1): class names from the sidecar
 * manifest, the class histogram, a server-side label filter, and each sample's stored bytes,
 * resolution and raw/JPEG mode.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBuildConfig } from '../../core/api/build-config.js';
import type { InspectResult, PreviewResult } from '../../core/api/contract.js';
import { manifestPathFor } from '../../core/api/dataset-manifest.js';
import { BetonService } from '../../core/services/beton-service.js';
import { buildDataset } from '../../core/app/build.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-browse-'));
const service = new BetonService({ roots: null, host: 'server', dbPath: join(dir, 'runs.sqlite') });
afterAll(() => {
  service.close();
  rmSync(dir, { recursive: true, force: true });
});
const out = join(dir, 'ds.beton');

async function call<T>(method: string, params: unknown): Promise<T> {
  const env = await service.call(method, params);
  if (!env.ok) throw new Error(`${env.error.code}: ${env.error.message}`);
  return env.value as T;
}

beforeAll(async () => {
  cpSync(resolve(__dirname, '../../assets/sample-images'), join(dir, 'images'), { recursive: true });
  // 'smart' with a threshold: some samples raw, some JPEG.
  const parsed = parseBuildConfig({
    source: { type: 'image_folder', path: join(dir, 'images') },
    output: out,
    numWorkers: 0,
    image: { writeMode: 'smart', smartThreshold: 20_000, maxResolution: 96 },
  });
  if (!parsed.ok) throw new Error(parsed.errors.join('; '));
  await buildDataset(parsed.value);
});

describe('datasets.inspect / datasets.preview: browse', () => {
  it('inspect: the manifest is ok and the histogram counts every class by name', async () => {
    const info = await call<InspectResult>('datasets.inspect', { path: out });
    expect(info.manifest).toMatchObject({
      status: 'ok',
      note: null,
      classNames: { field: 'label', names: ['circles', 'gradients', 'squares', 'stripes'] },
    });
    expect(info.labels).toEqual({
      field: 'label',
      distinct: 4,
      truncated: false,
      counts: [0, 1, 2, 3].map((label) => ({ label, count: 12, name: info.manifest!.classNames!.names[label] })),
    });
  });

  it('preview: class names, stored bytes (= the allocation sizes), resolution and mode per sample', async () => {
    const p = await call<PreviewResult>('datasets.preview', { path: out, start: 0, count: 48 });
    expect(p.samples.map((s) => s.className)).toEqual(['circles', 'gradients', 'squares', 'stripes'].flatMap((c) => Array(12).fill(c)));
    const info = await call<InspectResult>('datasets.inspect', { path: out });
    const image = info.fields.find((f) => f.name === 'image')!;
    expect(p.samples.reduce((s, x) => s + x.storedBytes!.image!, 0)).toBe(image.heapBytes);
    expect(p.samples.every((s) => s.storedBytes!.label === 0)).toBe(true);
    const modes = p.samples.map((s) => (s.fields.image!.kind === 'image' ? s.fields.image!.mode : null));
    expect(modes.filter((m) => m === 'jpg').length).toBe(image.imageModes!.jpg);
    expect(modes.filter((m) => m === 'raw').length).toBe(image.imageModes!.raw);
    for (const s of p.samples) {
      const v = s.fields.image!;
      if (v.kind !== 'image') throw new Error('no image');
      expect(Math.max(v.width, v.height)).toBeLessThanOrEqual(96);
      if (v.mode === 'raw') expect(s.storedBytes!.image).toBe(v.width * v.height * 3);
    }
  });

  it('preview with a label: only that class, paged among the matches', async () => {
    const p = await call<PreviewResult>('datasets.preview', { path: out, start: 10, count: 24, label: 2 });
    expect(p.filter).toEqual({ field: 'label', label: 2, matches: 12 });
    expect(p.samples.map((s) => s.index)).toEqual([34, 35]);
    expect(p.samples.every((s) => s.className === 'squares')).toBe(true);
    const none = await call<PreviewResult>('datasets.preview', { path: out, label: 9 });
    expect(none.filter!.matches).toBe(0);
    expect(none.samples).toEqual([]);
    const env = await service.call('datasets.preview', { path: out, label: 1, labelField: 'image' });
    expect(env.ok).toBe(false);
    if (!env.ok)
      expect(env.error).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining('has no int field "image" to filter by') });
  });

  it('a corrupt manifest: the dataset opens with label numbers and a note', async () => {
    const copy = join(dir, 'copy.beton');
    cpSync(out, copy);
    writeFileSync(manifestPathFor(copy), '{not json');
    const info = await call<InspectResult>('datasets.inspect', { path: copy });
    expect(info.manifest!.status).toBe('corrupt');
    expect(info.manifest!.note).toContain('is not JSON');
    expect(info.labels!.counts.map((c) => c.name)).toEqual([null, null, null, null]);
    const p = await call<PreviewResult>('datasets.preview', { path: copy, count: 1 });
    expect(p.samples[0]!.className).toBeNull();
  });
});
