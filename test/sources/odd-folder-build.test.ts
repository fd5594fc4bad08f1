import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBuildConfig } from '../../core/api/build-config.js';
import { Reader } from '../../core/reader/reader.js';
import { ImageFolderSource } from '../../core/sources/images/image-folder.js';
import { buildDataset } from '../../core/app/build.js';
import { writeOddImages, type OddImageCase } from '../helpers/odd-images.js';

const dir = mkdtempSync(join(tmpdir(), 'beton-oddbuild-'));
const root = join(dir, 'odd');
let cases: OddImageCase[];
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeAll(async () => {
  cases = await writeOddImages(root, { fifo: false });
});

function config(out: string, onError: 'fail' | 'skip', passThrough = false) {
  const r = parseBuildConfig({
    source: { type: 'image_folder', path: root },
    output: out,
    onError,
    numWorkers: 2,
    // No cap (the build default is 512 px): every qualifying source JPEG passes through unchanged.
    image: { writeMode: 'jpg', passThrough, maxResolution: null },
  });
  if (!r.ok) throw new Error(r.errors.join('; '));
  return r.value;
}

describe('building a folder of every odd and broken image', () => {
  it("'fail' names the first bad file in dataset order and leaves no output", async () => {
    const order = new ImageFolderSource(root).items.map((i) => i.path);
    const bad = new Set(cases.filter((c) => c.listed && c.outcome === 'error').map((c) => c.path));
    const first = order.find((p) => bad.has(p))!;
    const out = join(dir, 'fail.beton');
    await expect(buildDataset(config(out, 'fail'))).rejects.toThrow(first);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });

  it.each([false, true])("'skip' writes the good ones and lists exactly the bad ones (passThrough %s)", async (passThrough) => {
    const out = join(dir, `skip-${passThrough}.beton`);
    const report = await buildDataset(config(out, 'skip', passThrough));
    const listed = cases.filter((c) => c.listed);
    const bad = listed
      .filter((c) => c.outcome === 'error')
      .map((c) => c.path)
      .sort();
    const doc = JSON.parse(readFileSync(report.reportPath!, 'utf8')) as { skipped: Array<{ path: string }> };
    expect(doc.skipped.map((s) => s.path).sort()).toEqual(bad);
    expect(report.numSamples).toBe(listed.length - bad.length);
    expect(report.numSamples + report.skipped.length).toBe(report.source.items);
    if (passThrough) expect(report.passThrough).toBe(listed.filter((c) => c.outcome === 'ok' && c.passThrough).length);
    const r = await Reader.open(out);
    for (let i = 0; i < r.numSamples; i++) r.read(i);
    r.close();
  });
});
