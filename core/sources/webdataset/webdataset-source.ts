import { NDARRAY_IDENTITY } from '../../fields/ndarray-field.js';
import { RGB_IMAGE_IDENTITY } from '../../fields/rgb-image-field.js';
import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { RGBImageFieldConfig, type FieldConfig } from '../../api/build-config.js';
import { BetonEncodeError } from '../../format/errors.js';
import { readRegularText } from '../../native/regular-file.js';
import { skipMarker, type Sample } from '../../writer/sample.js';
import { compileMapper } from '../tables/column-mapping.js';
import { uniqueFieldNames } from '../tables/field-names.js';
import { parseNpyHeader } from '../npy/npy-header.js';
import { expandPathPattern, folderFiles, isPathPattern } from '../common/path-patterns.js';
import type { ReadGuard } from '../common/read-guard.js';
import type { DatasetSource } from '../common/source.js';
import { ShardReadError, tarGroups, type TarGroup } from './tar-samples.js';
import { parseIntText } from '../tables/cell-text.js';

/** Samples read from the first shards to detect the schema. */
const DETECT_SAMPLES = 64;

/** Extensions WebDataset (and this loader's decoders) treat as images. */
const IMAGE_EXTS = new Set(['jpg', 'jpeg', 'png', 'webp', 'ppm', 'pgm', 'pnm', 'bmp', 'gif', 'tif', 'tiff']);
/** Extensions that hold a class index as text (WebDataset's `cls`, `cls2`, `index`); `txt` too when every value is an integer. */
const CLASS_EXTS = new Set(['cls', 'cls2', 'index', 'label']);

export const isShardName = (name: string): boolean => /\.(tar|tar\.gz|tgz)$/i.test(name);

/** The last part of an extension decides its type: `seg.png` is an image. */
const lastExt = (ext: string): string => ext.slice(ext.lastIndexOf('.') + 1);

type ExtKind = 'image' | 'int' | 'text' | 'json' | 'npy' | 'bytes';

/**
 * WebDataset shards (tar or tar.gz files whose members are grouped into samples by key) as
 * a DatasetSource. The shards come from a brace pattern (`train-{000000..000041}.tar`), a
 * glob, a folder of shards, one shard, or a list file (one shard path per line). Each
 * extension is a column: images → rgb_image (the encoded bytes, so JPEG pass-through
 * works), `cls`/`cls2`/integer `txt` → int, other text → json string, `json` → json, `npy`
 * → ndarray, anything else → bytes. The proposed schema names the first image `image` and
 * the first class column `label` (the names the rest of Beton uses), recording the
 * extension in `columns`; edit it like any other.
 *
 * Shards are streamed one after another (tar-samples.ts), so memory holds one sample
 * whatever the shard count. The length is not known without reading every shard:
 * `countSamples()` does that when a --shard k/N build needs it. A sample missing a member a
 * field needs, or a shard that is corrupt or cut short, becomes a skip marker naming shard
 * and key, so the writer's onError policy fails or skips and reports it.
 */
export class WebDatasetSource implements DatasetSource {
  readonly kind = 'webdataset';
  readonly length: number | null = null;
  readonly baseDir: string;
  private columnKinds: Map<string, ExtKind> | null = null;

  private constructor(
    /** The pattern, folder, shard or list file given. */
    readonly path: string,
    readonly shards: readonly string[],
  ) {
    this.baseDir = dirname(shards[0]!);
  }

  /** Opens shards named by a pattern, a folder of shards, a single shard or a list file of shard paths. */
  static open(spec: string, baseDir = process.cwd(), opts: { readGuard?: ReadGuard } = {}): WebDatasetSource {
    const guard = opts.readGuard;
    // Confined while expanded: a list's globs list no outside folder, and an outside name is refused whether it exists or not.
    const shards = resolveShards(spec, baseDir, guard);
    // beton serve: a list file or a pattern must not name shards outside the served folders.
    return new WebDatasetSource(
      spec,
      guard
        ? shards.map((s) => {
            try {
              return guard(s);
            } catch (e) {
              throw new BetonEncodeError('BAD_OPTIONS', `${s} (named by ${spec}): ${(e as Error).message}`, { source: s });
            }
          })
        : shards,
    );
  }

  /** Columns (extensions) and their kinds, from the first DETECT_SAMPLES samples. */
  private async detectColumns(): Promise<Map<string, ExtKind>> {
    if (this.columnKinds) return this.columnKinds;
    const seen = new Map<string, Uint8Array[]>();
    let n = 0;
    outer: for (const shard of this.shards) {
      try {
        for await (const g of tarGroups(shard)) {
          for (const [ext, bytes] of g.members) {
            const list = seen.get(ext) ?? [];
            list.push(bytes);
            seen.set(ext, list);
          }
          if (++n >= DETECT_SAMPLES) break outer;
        }
      } catch (e) {
        if (n === 0 && e instanceof ShardReadError) throw new BetonEncodeError('BAD_VALUE', e.describe(), { source: shard });
        break;
      }
    }
    if (seen.size === 0)
      throw new BetonEncodeError('BAD_VALUE', `${this.shards[0]}: no samples (members named KEY.EXT) in the shard`, { source: this.path });
    this.columnKinds = new Map([...seen].map(([ext, values]) => [ext, kindOf(ext, values)]));
    return this.columnKinds;
  }

  /** Column names: one per extension seen, then `__key__` (the sample's key, as WebDataset names it). */
  async columns(): Promise<string[]> {
    return [...(await this.detectColumns()).keys(), '__key__'];
  }

  async detectSchema(): Promise<FieldConfig[]> {
    const kinds = await this.detectColumns();
    const exts = [...kinds.keys()];
    const firstImage = exts.find((e) => kinds.get(e) === 'image');
    const firstLabel = exts.find((e) => kinds.get(e) === 'int' && CLASS_EXTS.has(lastExt(e))) ?? exts.find((e) => kinds.get(e) === 'int');
    const wanted = exts.map((e) => (e === firstImage ? 'image' : e === firstLabel ? 'label' : e.replace(/\./g, '_')));
    const names = uniqueFieldNames(wanted);
    const samples = await this.sampleValues();
    return exts.map((ext, i) => {
      const name = names[i]!;
      const cols = name === ext ? {} : { columns: [ext] };
      switch (kinds.get(ext)!) {
        case 'image':
          return { ...RGBImageFieldConfig.parse({ name, type: RGB_IMAGE_IDENTITY.type }), ...cols };
        case 'int':
          return { name, type: 'int', ...cols };
        case 'text':
        case 'json':
          return { name, type: 'json', ...cols };
        case 'npy': {
          const a = samples.get(ext);
          return a ? { name, type: NDARRAY_IDENTITY.type, dtype: a.dtype, shape: a.shape, ...cols } : { name, type: 'bytes', ...cols };
        }
        case 'bytes':
          return { name, type: 'bytes', ...cols };
      }
    });
  }

  /** The first npy member of each npy column (for its dtype and shape), read again from the first shard. */
  private async sampleValues(): Promise<Map<string, { dtype: string; shape: number[] }>> {
    const kinds = await this.detectColumns();
    const out = new Map<string, { dtype: string; shape: number[] }>();
    const npys = [...kinds].filter(([, k]) => k === 'npy').map(([e]) => e);
    if (npys.length === 0) return out;
    for await (const g of tarGroups(this.shards[0]!)) {
      for (const e of npys) {
        const b = g.members.get(e);
        if (b && !out.has(e)) {
          const v = decodeNpy(b, e);
          if (v) out.set(e, { dtype: v.dtype, shape: v.shape });
        }
      }
      break;
    }
    return out;
  }

  samples(fields: readonly FieldConfig[], range?: { start: number; end: number }): AsyncIterable<Sample> {
    const start = Math.max(0, range?.start ?? 0);
    const end = range?.end ?? Number.POSITIVE_INFINITY;
    const read = (): AsyncGenerator<Sample> => this.read(fields, start, end);
    return {
      ...(Number.isFinite(end) ? { length: end - start } : {}),
      [Symbol.asyncIterator]: read,
    };
  }

  private async *read(fields: readonly FieldConfig[], start: number, end: number): AsyncGenerator<Sample> {
    const columns = await this.columns();
    const kinds = await this.detectColumns();
    // Compiled before the first sample, so a bad mapping fails before the writer starts.
    const mapper = compileMapper(fields, columns, { path: this.path, baseDir: this.baseDir });
    const needed = mapper.needed.map((c) => columns[c]!).filter((c) => c !== '__key__');
    let index = 0;
    for (const shard of this.shards) {
      if (index >= end) return;
      try {
        for await (const g of tarGroups(shard)) {
          const i = index++;
          if (i < start) continue;
          if (i >= end) return;
          yield toSample(g, i, shard, columns, kinds, needed, mapper);
        }
      } catch (e) {
        if (!(e instanceof ShardReadError)) throw e;
        // One item stands for the rest of the shard: fail names it, skip reports it and goes on to the next shard.
        const i = index++;
        if (i >= start && i < end) yield skipMarker(e.describe(), `${shard}${e.key !== null ? ` key ${e.key}` : ''}`);
      }
    }
  }

  /** Reads every shard's headers to count samples (for --shard k/N, whose slices need the total). */
  async countSamples(): Promise<number> {
    let n = 0;
    for (const shard of this.shards) {
      try {
        for await (const _ of tarGroups(shard)) n++;
      } catch (e) {
        if (!(e instanceof ShardReadError)) throw e;
        n++; // the skip marker the read will yield
      }
    }
    return n;
  }

  sourceBytes(): number {
    return this.shards.reduce((s, p) => s + statSync(p).size, 0);
  }
}

function toSample(
  g: TarGroup,
  index: number,
  shard: string,
  columns: readonly string[],
  kinds: Map<string, ExtKind>,
  needed: readonly string[],
  mapper: ReturnType<typeof compileMapper>,
): Sample {
  const missing = needed.filter((c) => !g.members.has(c));
  if (missing.length) {
    const has = [...g.members.keys()].map((e) => `.${e}`).join(', ') || 'none';
    return skipMarker(
      `${shard}: sample "${g.key}" has no .${missing.join(', .')} member (it has ${has}); every sample needs a member for each field`,
      `${shard} key ${g.key}`,
    );
  }
  try {
    const values = columns.map((c) => (c === '__key__' ? g.key : memberValue(g.members.get(c), kinds.get(c) ?? 'bytes', c)));
    return mapper.map({ index, values });
  } catch (e) {
    const err = e as Error & { details?: { field?: string } };
    return skipMarker(`${shard}: sample "${g.key}": ${err.message}`, `${shard} key ${g.key}`, err.details?.field);
  }
}

/** A member's bytes as the value its column kind maps from. */
function memberValue(b: Uint8Array | undefined, kind: ExtKind, ext: string): unknown {
  if (b === undefined) return undefined;
  switch (kind) {
    case 'image':
    case 'bytes':
      return b;
    case 'int':
    case 'text':
      return new TextDecoder().decode(b).trim();
    case 'json':
      try {
        return JSON.parse(new TextDecoder().decode(b)) as unknown;
      } catch (e) {
        throw new Error(`.${ext} is not JSON: ${(e as Error).message}`);
      }
    case 'npy':
      return decodeNpy(b, ext) ?? b;
  }
}

/** A .npy member as an NDArray ({dtype, shape, bytes}) in the file's own dtype, or null when it is not numeric. */
function decodeNpy(b: Uint8Array, where: string): { dtype: string; shape: number[]; bytes: Uint8Array } | null {
  const h = parseNpyHeader(b, where);
  if (h.element.kind !== 'numeric') return null;
  const count = h.shape.reduce((a, c) => a * c, 1);
  const bytes = b.slice(h.dataOffset, h.dataOffset + count * h.element.itemsize);
  return { dtype: h.element.dtype.str, shape: h.shape.length ? h.shape : [1], bytes };
}

function kindOf(ext: string, values: readonly Uint8Array[]): ExtKind {
  const last = lastExt(ext);
  if (IMAGE_EXTS.has(last)) return 'image';
  if (last === 'json') return 'json';
  if (last === 'npy') return 'npy';
  if (CLASS_EXTS.has(last) || last === 'txt' || last === 'text') {
    const texts = values.map((v) => new TextDecoder().decode(v).trim());
    if (texts.every((t) => parseIntText(t) !== null)) return 'int';
    return 'text';
  }
  return 'bytes';
}

/** The shard files a spec names: a pattern, a folder of shards, one shard, or a list file (one path or pattern a line). */
export function resolveShards(spec: string, baseDir = process.cwd(), guard?: ReadGuard): string[] {
  const checked = (files: string[], from: string): string[] => {
    const bad = files.find((f) => !isShardName(f));
    if (bad) throw new BetonEncodeError('BAD_OPTIONS', `${bad} (named by ${from}) is not a .tar/.tar.gz/.tgz shard`, { source: bad });
    return files;
  };
  // A refusal names the shard and what named it, whether the shard exists or not.
  const namedBy = (from: string): ReadGuard | undefined =>
    guard &&
    ((p: string): string => {
      try {
        return guard(p);
      } catch (e) {
        throw new BetonEncodeError('BAD_OPTIONS', `${p} (named by ${from}): ${(e as Error).message}`, { source: p });
      }
    });
  if (isPathPattern(spec)) return checked(expandPathPattern(spec, baseDir, namedBy(spec)), spec);
  const abs = resolve(baseDir, spec);
  let st;
  try {
    st = statSync(abs);
  } catch {
    throw new BetonEncodeError('BAD_OPTIONS', `cannot open source ${abs}: no such file or folder`, { source: abs });
  }
  if (st.isDirectory()) {
    const files = folderFiles(abs, isShardName);
    if (files.length === 0)
      throw new BetonEncodeError('BAD_OPTIONS', `${abs}: the folder holds no .tar/.tar.gz/.tgz shards`, { source: abs });
    return files;
  }
  if (isShardName(abs)) return [abs];
  // Through the one opener, as the shards are: a regular file, and under beton serve still
  // inside the served folders when opened (a folder swapped for a link since the check is refused).
  const lines = readRegularText(abs, 'shard list')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  if (lines.length === 0) throw new BetonEncodeError('BAD_OPTIONS', `${abs}: the shard list is empty`, { source: abs });
  return checked(
    lines.flatMap((l) => expandPathPattern(l, dirname(abs), namedBy(abs))),
    abs,
  );
}

/** Whether a file is a list of shards: every non-blank, non-comment line names a .tar/.tar.gz/.tgz (first 64 KiB looked at). */
export function looksLikeShardList(path: string): boolean {
  if (!/\.(txt|list|shards)$/i.test(path)) return false;
  try {
    const lines = readRegularText(path, 'shard list')
      .slice(0, 65536)
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'));
    return lines.length > 0 && lines.every((l) => isShardName(l.replace(/\{[^}]*\}/g, 'x')));
  } catch {
    return false;
  }
}
