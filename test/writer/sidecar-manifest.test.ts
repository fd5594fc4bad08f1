/**
 * The sidecar manifest (issue 14, feature 1): every build leaves OUT.beton.manifest.json
 * beside OUT.beton with the class names, the config and the report, written atomically after
 * the .beton; a failed build leaves neither. Reading never fails for the manifest's sake.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseBuildConfig, type BuildConfigInput } from '../../core/api/build-config.js';
import { manifestPathFor, type DatasetManifest } from '../../core/api/dataset-manifest.js';
import { datasetContentSha256 } from '../../core/reader/content-hash.js';
import { readSidecarManifest } from '../../core/reader/sidecar-manifest.js';
import { buildDataset } from '../../core/app/build.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-manifest-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const images = join(dir, 'images');
cpSync(resolve(__dirname, '../../assets/sample-images'), images, { recursive: true });

async function build(input: Omit<BuildConfigInput, 'source'> & { source?: BuildConfigInput['source'] }) {
  const parsed = parseBuildConfig({
    source: { type: 'image_folder', path: images },
    numWorkers: 0,
    image: { maxResolution: 32 },
    ...input,
  });
  if (!parsed.ok) throw new Error(parsed.errors.join('; '));
  return buildDataset(parsed.value);
}

describe('sidecar manifest: written by the build', () => {
  it('an image folder build writes class names in label order, the config, the report and the content hash', async () => {
    const out = join(dir, 'folder.beton');
    const report = await build({ output: out });
    const m = JSON.parse(readFileSync(manifestPathFor(out), 'utf8')) as DatasetManifest;
    expect(m.format).toBe('beton-studio/dataset-manifest');
    expect(m.version).toBe(1);
    expect(m.classNames).toEqual({ field: 'label', names: ['circles', 'gradients', 'squares', 'stripes'], from: 'image_folder' });
    expect(m.labelMappings).toEqual({});
    expect(m.beton).toEqual({ file: out, contentSha256: datasetContentSha256(out), fileSize: report.fileSize, numSamples: 48 });
    expect((m.build as { image: { maxResolution: number } }).image.maxResolution).toBe(32);
    expect((m.report as { numSamples: number }).numSamples).toBe(48);
    // Written through a temp file renamed into place: nothing else is left in the folder.
    expect(readdirSync(dir).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('a field renamed from the label column still gets the names; a build without the label gets none', async () => {
    const out = join(dir, 'renamed.beton');
    await build({
      output: out,
      fields: [
        { name: 'img', type: 'rgb_image', columns: ['image'], maxResolution: 32 },
        { name: 'y', type: 'int', columns: ['label'] },
      ],
    });
    expect((JSON.parse(readFileSync(manifestPathFor(out), 'utf8')) as DatasetManifest).classNames?.field).toBe('y');
    const out2 = join(dir, 'nolabel.beton');
    await build({ output: out2, fields: [{ name: 'image', type: 'rgb_image', maxResolution: 32 }] });
    expect((JSON.parse(readFileSync(manifestPathFor(out2), 'utf8')) as DatasetManifest).classNames).toBeNull();
  });

  it('a table build has no class names and an empty label mapping', async () => {
    const csv = join(dir, 't.csv');
    writeFileSync(csv, 'x,label\n1.5,0\n2.5,1\n');
    const out = join(dir, 'table.beton');
    await build({ source: { type: 'table', path: csv }, output: out, image: undefined });
    const m = JSON.parse(readFileSync(manifestPathFor(out), 'utf8')) as DatasetManifest;
    expect(m.classNames).toBeNull();
    expect(m.labelMappings).toEqual({});
  });

  it('a string column mapped to an int label: the categories are the class names and the mapping is saved', async () => {
    const csv = join(dir, 'species.csv');
    writeFileSync(csv, 'species,w\ncat,1\ndog,2\nbird,3\n');
    const out = join(dir, 'species.beton');
    await build({
      source: { type: 'table', path: csv },
      output: out,
      image: undefined,
      fields: [{ name: 'label', type: 'int', categories: ['bird', 'cat', 'dog'], columns: ['species'] }],
    });
    const m = JSON.parse(readFileSync(manifestPathFor(out), 'utf8')) as DatasetManifest;
    expect(m.classNames).toEqual({ field: 'label', names: ['bird', 'cat', 'dog'], from: 'categories' });
    expect(m.labelMappings).toEqual({ label: { bird: 0, cat: 1, dog: 2 } });
  });

  it('a build that fails leaves neither file', async () => {
    const bad = join(dir, 'bad-images');
    cpSync(images, bad, { recursive: true });
    writeFileSync(join(bad, 'circles', 'zz-broken.jpg'), 'not a jpeg');
    const out = join(dir, 'failed.beton');
    await expect(build({ source: { type: 'image_folder', path: bad }, output: out })).rejects.toThrow();
    expect(existsSync(out)).toBe(false);
    expect(existsSync(manifestPathFor(out))).toBe(false);
  });

  it('a manifest that cannot be written takes the .beton with it (both or neither)', async () => {
    const out = join(dir, 'blocked.beton');
    // A non-empty folder at the manifest's name: the rename over it fails.
    mkdirSync(join(manifestPathFor(out), 'x'), { recursive: true });
    await expect(build({ output: out })).rejects.toThrow();
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir).filter((n) => n.startsWith('.blocked'))).toEqual([]);
  });
});

describe('sidecar manifest: read', () => {
  it('ok for the file it describes', async () => {
    const out = join(dir, 'read.beton');
    await build({ output: out });
    const r = readSidecarManifest(out);
    expect(r.status).toBe('ok');
    if (r.status === 'ok') expect(r.manifest.classNames?.names[3]).toBe('stripes');
  });

  it('missing: no note, no error', () => {
    const out = join(dir, 'folder.beton');
    const copy = join(dir, 'copy.beton');
    cpSync(out, copy);
    expect(readSidecarManifest(copy)).toEqual({ status: 'missing', path: manifestPathFor(copy) });
  });

  it('corrupt (not JSON, not a manifest, a newer version): ignored with a note naming the file', () => {
    const out = join(dir, 'corrupt.beton');
    cpSync(join(dir, 'folder.beton'), out);
    const good = readFileSync(manifestPathFor(join(dir, 'folder.beton')), 'utf8');
    for (const [text, says] of [
      ['{"format": "beton-studio/dataset-manifest", "vers', 'is not JSON'],
      ['{"hello": 1}', 'is not a dataset manifest'],
      [good.replace('"version": 1', '"version": 7'), 'newer than this reader'],
    ] as const) {
      writeFileSync(manifestPathFor(out), text);
      const r = readSidecarManifest(out);
      expect(r.status).toBe('corrupt');
      if (r.status === 'corrupt') {
        expect(r.note).toContain(says);
        expect(r.note).toContain(manifestPathFor(out));
      }
    }
  });

  it('stale: a manifest of another build of the file is ignored with a note', async () => {
    const out = join(dir, 'stale.beton');
    await build({ output: out });
    const old = readFileSync(manifestPathFor(out), 'utf8');
    // Rebuilt with another max resolution (same header, other allocation sizes), old manifest put back.
    await build({ output: out, image: { maxResolution: 16 } });
    writeFileSync(manifestPathFor(out), old);
    const r = readSidecarManifest(out);
    expect(r.status).toBe('stale');
    if (r.status === 'stale') expect(r.note).toMatch(/describes another build of this file .* it is ignored/);
  });
});
