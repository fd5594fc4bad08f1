import { execFileSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { parseBuildConfig, type BuildConfigInput } from '../../core/api/build-config.js';
import { buildDataset } from '../../core/app/build.js';
import { Reader } from '../../core/reader/reader.js';

/** What was planted, by file name (relative to the image folder). */
export interface HealthPlan {
  clean: string[];
  /** [original, copy] pairs; some copies sit in another class. */
  dups: Array<[string, string, boolean]>;
  /** [original, resized and re-encoded] pairs. */
  near: Array<[string, string]>;
  aspect: string[];
  corrupt: string[];
}

/**
 * An ImageFolder (4 classes) of varied synthetic JPEGs written with PIL: random shapes on a
 * random background with light noise, 48-120 px. `clean` of them are untouched; on top:
 * exact copies (half of them in another class), near-duplicates (resized to 75% and saved
 * at JPEG quality 55 instead of 90), a 2000x20 image, and two clean-looking images whose
 * payloads seedHealthDataset() corrupts inside the .beton.
 */
export function writeHealthFolder(root: string, clean: number, extra: { dups: number; near: number }, seed = 1): HealthPlan {
  const py = `
import os, sys, json, numpy as np
from PIL import Image, ImageDraw
root, n_clean, n_dup, n_near, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
rng = np.random.default_rng(seed)
def color(): return tuple(int(c) for c in rng.integers(0, 256, 3))
def make(w, h):
    img = Image.new('RGB', (w, h), color())
    d = ImageDraw.Draw(img)
    for _ in range(int(rng.integers(4, 10))):
        x0, y0 = int(rng.integers(0, w)), int(rng.integers(0, h))
        box = [x0, y0, x0 + int(rng.integers(5, w)), y0 + int(rng.integers(5, h))]
        (d.ellipse if rng.random() < 0.5 else d.rectangle)(box, fill=color())
    a = np.asarray(img).astype(np.int16) + rng.integers(-6, 7, (h, w, 3))
    return Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
for k in range(4): os.makedirs(os.path.join(root, f"class_{k}"), exist_ok=True)
plan = {"clean": [], "dups": [], "near": [], "aspect": [], "corrupt": []}
originals = []
for i in range(n_clean + 2):
    name = f"class_{i % 4}/{'clean' if i < n_clean else 'corruptme'}_{i:05d}.jpg"
    img = make(int(rng.integers(48, 121)), int(rng.integers(48, 121)))
    img.save(os.path.join(root, name), quality=90)
    (plan["clean"] if i < n_clean else plan["corrupt"]).append(name)
    originals.append((name, img))
for j in range(n_dup):
    src, _ = originals[j]
    other = j % 2 == 1
    k = (int(src[6]) + (1 if other else 0)) % 4
    name = f"class_{k}/dup_{j:05d}.jpg"
    open(os.path.join(root, name), "wb").write(open(os.path.join(root, src), "rb").read())
    plan["dups"].append([src, name, other])
for j in range(n_near):
    src, img = originals[n_dup + j]
    name = f"{src.split('/')[0]}/near_{j:05d}.jpg"
    img.resize((img.width * 3 // 4, img.height * 3 // 4), Image.BILINEAR).save(os.path.join(root, name), quality=55)
    plan["near"].append([src, name])
make(2000, 20).save(os.path.join(root, "class_0/wide_00000.jpg"), quality=90)
plan["aspect"].append("class_0/wide_00000.jpg")
json.dump(plan, open(os.path.join(root, "plan.json"), "w"))
`;
  execFileSync('timeout', [
    '-k',
    '5',
    '300',
    '/usr/bin/python3',
    '-c',
    py,
    root,
    String(clean),
    String(extra.dups),
    String(extra.near),
    String(seed),
  ]);
  // The plan lives beside the classes; ImageFolder ignores files at the root.
  return JSON.parse(readFileSync(join(root, 'plan.json'), 'utf8')) as HealthPlan;
}

/**
 * Builds the folder into `out` (JPEGs passed through as they are, a `path` field naming
 * each file) and corrupts the payloads of the two `corrupt` images inside the .beton: one
 * with its headers zeroed, one with the second half of its entropy data and its end
 * marker zeroed. Returns each file's sample id.
 */
export async function seedHealthDataset(root: string, plan: HealthPlan, out: string): Promise<Map<string, number>> {
  const cfg = parseBuildConfig({
    source: { type: 'image_folder', path: root },
    output: out,
    // Pass-through JPEGs need no encoding: no encoder thread to start.
    numWorkers: 0,
    fields: [
      { name: 'image', type: 'rgb_image', writeMode: 'jpg', passThrough: true },
      { name: 'label', type: 'int' },
      { name: 'path', type: 'json' },
    ],
  } as BuildConfigInput);
  if (!cfg.ok) throw new Error(cfg.errors.join('\n'));
  await buildDataset(cfg.value);
  const ids = new Map<string, number>();
  const reader = await Reader.open(out);
  const refs: Array<{ ptr: number; size: number }> = [];
  try {
    const pf = reader.fieldIndex('path');
    for (let i = 0; i < reader.numSamples; i++) ids.set(reader.readField(i, pf) as string, i);
    for (const name of plan.corrupt) refs.push(reader.heapRef(ids.get(name)!, reader.fieldIndex('image'))!);
  } finally {
    reader.close();
  }
  const fd = openSync(out, 'r+');
  try {
    const [a, b] = refs;
    writeSync(fd, new Uint8Array(100), 0, 100, a!.ptr + 20);
    const half = Math.floor(b!.size / 2);
    writeSync(fd, new Uint8Array(b!.size - half), 0, b!.size - half, b!.ptr + half);
  } finally {
    closeSync(fd);
  }
  return ids;
}
