import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseBuildConfig, type BuildConfigInput } from '../../core/api/build-config.js';
import { buildDataset } from '../../core/app/build.js';
import { canonicalSample } from '../../core/reader/canonical.js';
import { Reader } from '../../core/reader/reader.js';
import { detectSourceConfig, openSource } from '../../core/sources/open-source.js';
import { expandBraces } from '../../core/sources/common/path-patterns.js';

const dir = mkdtempSync(join(tmpdir(), 'wds-'));
const folder = join(dir, 'images');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Shards written the way WebDataset users write them: Python's tarfile, members KEY.jpg /
 * KEY.png and KEY.cls, samples in torchvision ImageFolder order, `per` samples a shard.
 */
function writeShards(prefix: string, per: number, gz: boolean): void {
  const py = `
import sys, tarfile, io
from torchvision.datasets import ImageFolder
ds = ImageFolder(sys.argv[1])
prefix, per, gz = sys.argv[2], int(sys.argv[3]), sys.argv[4] == '1'
for s in range(0, len(ds.samples), per):
    name = f"{prefix}-{s // per:06d}.tar" + (".gz" if gz else "")
    with tarfile.open(name, "w:gz" if gz else "w") as t:
        for i in range(s, min(s + per, len(ds.samples))):
            path, label = ds.samples[i]
            ext = path.rsplit(".", 1)[1]
            for member, data in ((f"{i:06d}.{ext}", open(path, "rb").read()), (f"{i:06d}.cls", str(label).encode())):
                info = tarfile.TarInfo(member); info.size = len(data); t.addfile(info, io.BytesIO(data))
`;
  execFileSync('timeout', ['-k', '5', '60', '/usr/bin/python3', '-c', py, folder, prefix, String(per), gz ? '1' : '0']);
}

async function build(source: BuildConfigInput['source'], out: string, extra: Partial<BuildConfigInput> = {}) {
  const cfg = parseBuildConfig({ source, output: out, numWorkers: 1, ...extra } as BuildConfigInput);
  if (!cfg.ok) throw new Error(cfg.errors.join('\n'));
  return buildDataset(cfg.value);
}

async function samples(path: string): Promise<unknown[]> {
  const r = await Reader.open(path);
  try {
    return Array.from({ length: r.numSamples }, (_, i) => canonicalSample(r, i));
  } finally {
    r.close();
  }
}

/** An ImageFolder of 40 JPEGs (4 classes, varied sizes), written with PIL. */
function writeFolder(): void {
  const py = `
import os, sys, numpy as np
from PIL import Image
rng = np.random.default_rng(7)
for i in range(40):
    d = os.path.join(sys.argv[1], f"class_{i % 4}")
    os.makedirs(d, exist_ok=True)
    h, w = int(rng.integers(8, 80)), int(rng.integers(8, 80))
    Image.fromarray(rng.integers(0, 255, (h, w, 3), dtype=np.uint8)).save(os.path.join(d, f"img_{i:03d}.jpg"), quality=90)
`;
  execFileSync('timeout', ['-k', '5', '60', '/usr/bin/python3', '-c', py, folder]);
}

describe('WebDataset shards as a source', () => {
  it('expands WebDataset brace ranges with their zero padding, and lists', () => {
    expect(expandBraces('a-{000000..000002}.tar')).toEqual(['a-000000.tar', 'a-000001.tar', 'a-000002.tar']);
    expect(expandBraces('{x,y}-{8..10}.tar')).toEqual(['x-8.tar', 'x-9.tar', 'x-10.tar', 'y-8.tar', 'y-9.tar', 'y-10.tar']);
    expect(expandBraces('plain{abc}.tar')).toEqual(['plain{abc}.tar']);
  });

  it('shards written by tarfile build the same samples as the image folder (images, labels, order)', async () => {
    writeFolder();
    writeShards(join(dir, 'train'), 7, false);
    const fromFolder = await build({ type: 'image_folder', path: folder }, join(dir, 'folder.beton'));
    const pattern = join(dir, 'train-{000000..000005}.tar');
    const cfg = await detectSourceConfig(pattern);
    expect(cfg).toEqual({ type: 'webdataset', path: pattern });
    const src = await openSource(cfg, dir);
    const schema = await src.detectSchema();
    expect(schema.map((f) => [f.name, f.type, f.columns])).toEqual([
      ['image', 'rgb_image', ['jpg']],
      ['label', 'int', ['cls']],
    ]);
    const fromShards = await build(cfg, join(dir, 'shards.beton'), { fields: schema });
    expect(fromShards.numSamples).toBe(fromFolder.numSamples);
    expect(await samples(join(dir, 'shards.beton'))).toEqual(await samples(join(dir, 'folder.beton')));
    // A folder of shards and a glob name the same shards.
    expect(await detectSourceConfig(join(dir, 'train-*.tar'))).toEqual({ type: 'webdataset', path: join(dir, 'train-*.tar') });
  });

  it('gzip shards and a list file of shards', async () => {
    writeShards(join(dir, 'gz'), 16, true);
    const list = join(dir, 'shards.txt');
    writeFileSync(list, ['gz-000000.tar.gz', 'gz-000001.tar.gz', 'gz-000002.tar.gz', ''].join('\n'));
    const cfg = await detectSourceConfig(list);
    expect(cfg.type).toBe('webdataset');
    await build(cfg, join(dir, 'gz.beton'), {
      fields: [
        { name: 'image', type: 'rgb_image', columns: ['jpg'] },
        { name: 'label', type: 'int', columns: ['cls'] },
      ],
    });
    expect(await samples(join(dir, 'gz.beton'))).toEqual(await samples(join(dir, 'folder.beton')));
  });

  it('--shard k/N slices the shards by sample, and JPEG members pass through', async () => {
    const cfg = { type: 'webdataset' as const, path: join(dir, 'train-*.tar') };
    const fields = [
      { name: 'image', type: 'rgb_image' as const, columns: ['jpg'], writeMode: 'jpg' as const, passThrough: true },
      { name: 'label', type: 'int' as const, columns: ['cls'] },
    ];
    const r = await build(cfg, join(dir, 'shard1.beton'), { fields, shard: { index: 1, count: 2 } });
    expect(r.numSamples).toBe(20);
    expect(r.passThrough).toBeGreaterThan(0);
    const all = (await samples(join(dir, 'folder.beton'))) as Array<{ label: number }>;
    const part = (await samples(join(dir, 'shard1.beton'))) as Array<{ label: number }>;
    expect(part.map((s) => s.label)).toEqual(all.slice(20).map((s) => s.label));
  });

  it('a shard cut short mid-member fails naming shard and key, or is skipped and reported', async () => {
    writeShards(join(dir, 'cut'), 20, false);
    const victim = join(dir, 'cut-000000.tar');
    // Inside the data of a member in the middle of the shard.
    truncateSync(victim, Math.floor(readFileSync(victim).byteLength / 2) + 700);
    const cfg = { type: 'webdataset' as const, path: join(dir, 'cut-{000000..000001}.tar') };
    const fields = [
      { name: 'image', type: 'rgb_image' as const, columns: ['jpg'] },
      { name: 'label', type: 'int' as const, columns: ['cls'] },
    ];
    await expect(build(cfg, join(dir, 'cut.beton'), { fields })).rejects.toThrow(
      /cut-000000\.tar: the shard is corrupt or cut short .*key 0000\d\d/,
    );
    const r = await build(cfg, join(dir, 'cut.beton'), { fields, onError: 'skip' });
    expect(r.skipped).toHaveLength(1);
    expect(r.skipped[0]!.source).toMatch(/cut-000000\.tar key 0000\d\d/);
    expect(r.numSamples).toBeGreaterThan(20); // the second shard and the first shard's samples before the cut
    expect(r.numSamples).toBeLessThan(40);
    // A gzip shard cut short: the gunzip error names the shard too.
    const gz = join(dir, 'gz-000001.tar.gz');
    truncateSync(gz, Math.floor(readFileSync(gz).byteLength / 2));
    await expect(
      build({ type: 'webdataset', path: join(dir, 'gz-00000{0,1}.tar.gz') }, join(dir, 'cutgz.beton'), { fields }),
    ).rejects.toThrow(/gz-000001\.tar\.gz: the shard is corrupt or cut short/);
  });

  it('beton serve: a list file may not name shards outside the served folders', async () => {
    const list = join(dir, 'outside.txt');
    writeFileSync(list, 'train-000000.tar\n');
    const guard = (p: string): string => {
      if (!p.endsWith('.txt')) throw new Error('outside the served folders');
      return p;
    };
    await expect(openSource({ type: 'webdataset', path: list }, dir, { readGuard: guard })).rejects.toThrow(
      /train-000000\.tar \(named by .*outside\.txt\): outside the served folders/,
    );
  });

  it('a sample missing a member is named by shard and key', async () => {
    const py = `
import tarfile, io, sys
with tarfile.open(sys.argv[1], "w") as t:
    for name, data in (("a.cls", b"1"), ("a.txt", b"x"), ("b.txt", b"y")):
        info = tarfile.TarInfo(name); info.size = len(data); t.addfile(info, io.BytesIO(data))
`;
    const shard = join(dir, 'gap.tar');
    execFileSync('timeout', ['-k', '5', '60', '/usr/bin/python3', '-c', py, shard]);
    const src = await openSource({ type: 'webdataset', path: shard }, dir);
    const fields = await src.detectSchema();
    expect(fields.map((f) => [f.name, f.type])).toEqual([
      ['label', 'int'],
      ['txt', 'json'],
    ]);
    await expect(build({ type: 'webdataset', path: shard }, join(dir, 'gap.beton'), { fields })).rejects.toThrow(
      /gap\.tar: sample "b" has no \.cls member \(it has \.txt\)/,
    );
  });
});
