// Seeded reader/loader fuzzer (issue 12, kept in CI). Every fixture in test/fixtures/ffcv and a
// file per write mode (raw, jpg, smart, proportion) built here are mutated — header fields, the
// field table, metadata members, data pages and JPEG payloads, allocation-table entries,
// truncations, extensions, and several at once — and each mutant is read by:
//   - the Reader in this process, as `beton dump` reads (open + canonical form of every sample);
//   - the Loader in child processes (1 or 2 workers, a random image decoder, order and cache),
//     so that a native abort kills a child, not the test;
//   - `beton dump` and `beton inspect` (CLI, child processes) for a sample of the mutants.
// Required: no abort (signal, exit code other than 0/1/2), no hang, no stack trace in CLI
// output, every rejection a named error (BetonFormatError / LoaderError with a code).
// Defaults run ~1 minute on 2 cores; BETON_FUZZ_ITERATIONS=N (mutants per base file) and
// BETON_FUZZ_SEED=S for longer or other runs. The seed and the counts are printed.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BytesField } from '../../core/fields/bytes-field.js';
import type { Field } from '../../core/fields/field.js';
import { IntField } from '../../core/fields/int-field.js';
import { JSONField } from '../../core/fields/json-field.js';
import { RGBImageField, type WriteMode } from '../../core/fields/rgb-image-field.js';
import { BetonFormatError } from '../../core/format/errors.js';
import { canonicalSample } from '../../core/reader/canonical.js';
import { Reader } from '../../core/reader/reader.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';
import { fixtureNames, fixturePath } from '../helpers/fixtures.js';
import { requires } from '../helpers/requires.js';

const ROOT = resolve(__dirname, '../..');
const LIB = join(ROOT, 'dist/core/index.js');
const CLI = join(ROOT, 'bin/beton.js');
const SEED = Number(process.env.BETON_FUZZ_SEED ?? 20261124) >>> 0;
const PER_BASE = Math.max(1, Number(process.env.BETON_FUZZ_ITERATIONS ?? 30));
/** Every how many mutants `beton dump` and `beton inspect` run too. */
const CLI_EVERY = Math.max(1, Number(process.env.BETON_FUZZ_CLI_EVERY ?? 30));
/** The default run fits vitest's 120 s; a longer one (env) gets an hour. */
const TEST_TIMEOUT = process.env.BETON_FUZZ_ITERATIONS ? 3_600_000 : 120_000;
/** A loader run that reports nothing for this long is a hang. */
const HANG_MS = 30_000;

const dir = mkdtempSync(join(tmpdir(), 'beton-fuzz-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// mulberry32: small, seedable, good enough to pick mutations.
function rngFrom(seed: number): { next: () => number; int: (n: number) => number; pick: <T>(xs: readonly T[]) => T } {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  const int = (n: number): number => Math.floor(next() * n);
  return { next, int, pick: (xs) => xs[int(xs.length)]! };
}
type Rng = ReturnType<typeof rngFrom>;

/** What a mutator needs to know about a base file: its regions, members and objects. */
interface BaseFile {
  name: string;
  path: string;
  bytes: Buffer;
  pageSize: number;
  M0: number;
  M1: number;
  D0: number;
  T: number;
  recordSize: number;
  /** Per field: offset in the record, metadata size, type. */
  members: Array<{ offset: number; size: number; type: string; pointerOffset: number | null }>;
  numSamples: number;
  /** Heap objects with bytes: [ptr, size, isJpeg]. */
  objects: Array<[number, number, boolean]>;
  /** The first image field, which the loader jobs give an image decoder. */
  imageField: string | null;
  /** Whether its images all have one size (SimpleRGBImageDecoder needs that). */
  oneSize: boolean;
}

async function describeBase(name: string, path: string): Promise<BaseFile> {
  const r = await Reader.open(path);
  try {
    const members = r.fields.map(({ field }, f) => ({
      offset: r.recordLayout.offsets[f]!,
      size: field.metadata.size,
      type: field.type,
      pointerOffset: field.pointerOffset,
    }));
    const objects: Array<[number, number, boolean]> = [];
    const image = r.fields.findIndex((f) => f.field.type === 'rgb_image');
    for (let i = 0; i < r.numSamples; i++) {
      r.fields.forEach(({ field }, f) => {
        const ref = r.heapRef(i, f);
        if (ref && ref.size > 0) objects.push([ref.ptr, ref.size, field.type === 'rgb_image' && r.fieldMetadata(i, f).getUint8(0) === 0]);
      });
    }
    return {
      name,
      path,
      bytes: readFileSync(path),
      pageSize: r.pageSize,
      M0: r.regions.metadata.offset,
      M1: r.regions.metadataEnd,
      D0: r.regions.dataStart,
      T: r.header.allocTablePtr,
      recordSize: r.recordLayout.size,
      members,
      numSamples: r.numSamples,
      objects,
      imageField: image < 0 ? null : r.fields[image]!.name,
      oneSize:
        image >= 0 && new Set(Array.from({ length: r.numSamples }, (_, i) => r.fieldMetadata(i, image).getUint32(1, true))).size <= 1,
    };
  } finally {
    r.close();
  }
}

const u64Values = (rng: Rng, around: number, page: number): bigint => {
  const choices = [
    0,
    1,
    around - 1,
    around + 1,
    around - 24,
    around + 24,
    around + page,
    around - page,
    2 ** 32,
    2 ** 53 - 1,
    rng.int(2 ** 31),
  ];
  const v = rng.pick(choices);
  return v < 0 ? BigInt(rng.int(1000)) : rng.next() < 0.05 ? 0xffffffffffffffffn : BigInt(v);
};

/**
 * One mutation of `b` (in place, or a new buffer); returns its name. Offsets come from the
 * base file, so on a buffer already cut short (multi) a write may fall outside: a no-op.
 */
function mutateOnce(base: BaseFile, b: Buffer, rng: Rng): [string, Buffer] {
  try {
    return mutateUnchecked(base, b, rng);
  } catch (e) {
    if (e instanceof RangeError) return ['out-of-range(no-op)', b];
    throw e;
  }
}

function mutateUnchecked(base: BaseFile, b: Buffer, rng: Rng): [string, Buffer] {
  const flip = (from: number, to: number, count: number): void => {
    if (to <= from) return;
    for (let k = 0; k < count; k++) {
      const at = from + rng.int(to - from);
      b[at] = b[at]! ^ (1 + rng.int(255));
    }
  };
  // Weighted: header fields, members, JPEG payloads and table entries are where named
  // checks live; random byte flips mostly land in pixel data.
  const kind = rng.pick([0, 0, 1, 2, 3, 4, 4, 5, 6, 6, 7, 7, 8, 9, 10]);
  switch (kind) {
    case 0: {
      const which = rng.pick(['version', 'num_fields', 'page_size', 'num_samples', 'alloc_table_ptr'] as const);
      if (which === 'version') b.writeUInt16LE(rng.pick([0, 1, 3, 0xffff]), 0);
      else if (which === 'num_fields') b.writeUInt16LE(Math.max(0, b.readUInt16LE(2) + rng.pick([-2, -1, 1, 2, 7, 300])) & 0xffff, 2);
      else if (which === 'page_size')
        b.writeUInt32LE(
          rng.pick([0, 1, 511, 512, 4096, base.pageSize / 2, base.pageSize * 2, base.pageSize + 1, 0x80000000, 0xffffffff]) >>> 0,
          4,
        );
      else if (which === 'num_samples') b.writeBigUInt64LE(u64Values(rng, base.numSamples, 1), 8);
      else b.writeBigUInt64LE(u64Values(rng, base.T, base.pageSize), 16);
      return [`header.${which}`, b];
    }
    case 1:
      flip(24, base.M0, 1 + rng.int(3));
      return ['field-table', b];
    case 2:
      b[24 + 1041 * rng.int(Math.max(1, (base.M0 - 24) / 1041))] = rng.pick([0, 1, 2, 3, 4, 5, 6, 7, 254, 255]);
      return ['field-type', b];
    case 3:
      flip(base.M0, base.M1, 1 + rng.int(4));
      return ['metadata-bytes', b];
    case 4: {
      // A member of one record: image mode / width / height, a pointer, a size.
      const m = rng.pick(base.members);
      const at = base.M0 + rng.int(Math.max(1, base.numSamples)) * base.recordSize + m.offset;
      if (at + m.size > base.M1) return ['metadata-member', b];
      if (m.type === 'rgb_image') {
        const what = rng.int(4);
        if (what === 0) b[at] = rng.pick([0, 1, 2, 3, 128, 255]);
        else if (what === 1) b.writeUInt16LE((b.readUInt16LE(at + 1) + rng.pick([-1, 1, 8, 1000])) & 0xffff, at + 1);
        else if (what === 2) b.writeUInt16LE((b.readUInt16LE(at + 3) + rng.pick([-1, 1, 8, 1000])) & 0xffff, at + 3);
        else b.writeBigUInt64LE(BigInt(Math.max(0, Number(b.readBigUInt64LE(at + 5)) + rng.pick([-1, 1, -base.pageSize, 7]))), at + 5);
      } else if (m.pointerOffset !== null) {
        const p = at + m.pointerOffset;
        b.writeBigUInt64LE(BigInt(Math.max(0, Number(b.readBigUInt64LE(p)) + rng.pick([-1, 1, 13, base.pageSize]))), p);
        if (m.size >= 16 && rng.next() < 0.5) b.writeBigUInt64LE(u64Values(rng, Number(b.readBigUInt64LE(at + 8)), 4096), at + 8);
      } else flip(at, at + m.size, 1);
      return [`metadata-member.${m.type}`, b];
    }
    case 5:
      flip(base.D0, base.T, 1 + rng.int(8));
      return ['pages', b];
    case 6: {
      // JPEG payloads: entropy data, a marker, the header, zeroed ranges, the tail.
      const jpegs = base.objects.filter((o) => o[2]);
      const [ptr, size] = jpegs.length
        ? rng.pick(jpegs)
        : (rng.pick(base.objects.length ? base.objects : [[base.D0, 1, false]]) as [number, number, boolean]);
      const what = rng.int(5);
      if (what === 0) flip(ptr + Math.floor(size * 0.3), ptr + size, 1 + rng.int(6));
      else if (what === 1) {
        const at = ptr + Math.floor(size * (0.3 + 0.6 * rng.next()));
        if (at + 1 < ptr + size) {
          b[at] = 0xff;
          b[at + 1] = rng.pick([0x08, 0xd9, 0xd8, 0xc0, 0xda, 0xd0]);
        }
      } else if (what === 2) flip(ptr, ptr + Math.min(size, 400), 1 + rng.int(3));
      else if (what === 3) b.fill(0, ptr + rng.int(size), ptr + size);
      else b.fill(rng.pick([0, 0xff]), ptr + Math.floor(size / 2), ptr + Math.floor(size / 2) + 1 + rng.int(64));
      return [jpegs.length ? 'jpeg-payload' : 'heap-payload', b];
    }
    case 7: {
      const entries = Math.floor((b.length - base.T) / 24);
      if (entries <= 0 || base.T >= b.length) return ['alloc-table(empty)', b];
      const e = base.T + 24 * rng.int(entries);
      const what = rng.int(5);
      if (what === 0) b.writeBigUInt64LE(u64Values(rng, Number(b.readBigUInt64LE(e)), 1), e);
      else if (what === 1) b.writeBigUInt64LE(u64Values(rng, Number(b.readBigUInt64LE(e + 8)), base.pageSize), e + 8);
      else if (what === 2) b.writeBigUInt64LE(u64Values(rng, Number(b.readBigUInt64LE(e + 16)), 64), e + 16);
      else if (what === 3) b.copy(b, e, base.T + 24 * rng.int(entries), base.T + 24 * rng.int(entries) + 24);
      else flip(e, e + 24, 1 + rng.int(4));
      return ['alloc-table', b];
    }
    case 8: {
      const cuts = [base.M0, base.M1, base.D0, base.T, b.length - 1, b.length - 24, 24, 1 + rng.int(b.length - 1)];
      const at = Math.max(0, Math.min(b.length - 1, rng.pick(cuts) + rng.pick([-1, 0, 0, 1])));
      return ['truncate', b.subarray(0, at)];
    }
    case 9: {
      const tail = rng.pick([
        Buffer.alloc(24),
        Buffer.alloc(48, 0xff),
        Buffer.alloc(base.pageSize),
        Buffer.from(Array.from({ length: 1 + rng.int(200) }, () => rng.int(256))),
      ]);
      return ['extend', Buffer.concat([b, tail])];
    }
    default: {
      // Two to four mutations at once.
      let out = b;
      const names: string[] = [];
      for (let k = 2 + rng.int(3); k > 0; k--) {
        let name: string;
        [name, out] = mutateOnce(base, out, rng);
        if (name.startsWith('multi')) continue;
        names.push(name);
      }
      return [`multi(${names.join('+')})`, out];
    }
  }
}

interface Mutant {
  id: number;
  base: string;
  kind: string;
  path: string;
  imageField: string | null;
  oneSize: boolean;
}

// The loader child: runs the jobs given in a JSON file one by one and reports each outcome on
// its own line, written synchronously so that the line is out before any abort.
const CHILD = `
import { readFileSync, writeSync } from 'node:fs';
import { Loader, CenterCropRGBImageDecoder, RandomResizedCropRGBImageDecoder, SimpleRGBImageDecoder } from ${JSON.stringify(LIB)};
const jobs = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const from = Number(process.argv[3]);
const say = (s) => writeSync(1, s + '\\n');
const decoders = { simple: () => SimpleRGBImageDecoder(), center: () => CenterCropRGBImageDecoder(24), rrc: () => RandomResizedCropRGBImageDecoder(16) };
for (let i = from; i < jobs.length; i++) {
  const j = jobs[i];
  say('B ' + i);
  let outcome;
  let loader;
  try {
    const pipelines = j.decoder ? { [j.field]: [decoders[j.decoder]()] } : {};
    loader = await Loader.open(j.file, { batchSize: 8, numWorkers: j.workers, order: j.order, seed: i, osCache: j.osCache, dropLast: false, pipelines });
    let rows = 0;
    for await (const b of loader) rows += b.size;
    outcome = 'ok';
  } catch (e) {
    const named = e && typeof e.code === 'string' && /^[A-Z][A-Z0-9_]+$/.test(e.code) && (e.name === 'LoaderError' || e.name === 'BetonFormatError');
    outcome = named ? e.name + ':' + e.code : 'UNNAMED:' + (e && e.name) + ':' + String(e && e.message).slice(0, 200);
  } finally {
    try { await loader?.close(); } catch (e) { outcome = 'CLOSE_FAILED:' + String(e && e.message); }
  }
  say('E ' + i + ' ' + outcome);
}
say('DONE');
`;

interface LoaderJob {
  file: string;
  workers: 1 | 2;
  order: 'sequential' | 'random';
  osCache: boolean;
  field: string | null;
  decoder: 'simple' | 'center' | 'rrc' | null;
}

/** Runs every job in child processes; a child that dies or hangs is replaced for the next job. */
async function runLoaderJobs(jobs: LoaderJob[]): Promise<{ outcomes: string[]; children: number }> {
  const jobFile = join(dir, 'jobs.json');
  const script = join(dir, 'loader-child.mjs');
  writeFileSync(jobFile, JSON.stringify(jobs));
  writeFileSync(script, CHILD);
  const outcomes: string[] = new Array<string>(jobs.length).fill('NOT_RUN');
  let next = 0;
  let children = 0;
  while (next < jobs.length) {
    children++;
    const from = next;
    const result = await new Promise<{
      code: number | null;
      signal: NodeJS.Signals | null;
      current: number;
      hung: boolean;
      stderr: string;
    }>((done) => {
      const child = spawn(process.execPath, [script, jobFile, String(from)], { stdio: ['ignore', 'pipe', 'pipe'] });
      let buf = '';
      let stderr = '';
      let current = -1;
      let hung = false;
      let timer = setTimeout(() => ((hung = true), child.kill('SIGKILL')), HANG_MS);
      child.stdout.on('data', (d: Buffer) => {
        buf += d.toString();
        let nl: number;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          clearTimeout(timer);
          timer = setTimeout(() => ((hung = true), child.kill('SIGKILL')), HANG_MS);
          if (line.startsWith('B ')) current = Number(line.slice(2));
          else if (line.startsWith('E ')) {
            const sp = line.indexOf(' ', 2);
            outcomes[Number(line.slice(2, sp))] = line.slice(sp + 1);
            next = Number(line.slice(2, sp)) + 1;
            current = -1;
          }
        }
      });
      child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
      child.on('exit', (code, signal) => {
        clearTimeout(timer);
        done({ code, signal, current, hung, stderr });
      });
    });
    if (result.current >= 0) {
      // Died (or hung) inside job `current`.
      outcomes[result.current] = result.hung ? 'HANG' : `ABORT:${result.signal ?? result.code}:${result.stderr.slice(-300)}`;
      next = result.current + 1;
    } else if (next < jobs.length && result.code !== 0) {
      outcomes[next] = `ABORT:${result.signal ?? result.code}:${result.stderr.slice(-300)}`;
      next++;
    }
  }
  return { outcomes, children };
}

const sec = (a: number, b: number): number => Number(((b - a) / 1000).toFixed(1));

const tally = (xs: readonly string[]): Record<string, number> => {
  const t: Record<string, number> = {};
  for (const x of xs) t[x] = (t[x] ?? 0) + 1;
  return Object.fromEntries(Object.entries(t).sort((a, b) => b[1] - a[1]));
};

const bases: BaseFile[] = [];

beforeAll(async () => {
  for (const name of fixtureNames()) bases.push(await describeBase(name, fixturePath(name)));
  // One file per write mode, images of several sizes over several small pages; the JPEG
  // modes also carry a bytes or JSON field so that heap objects of other kinds are mutated.
  const img = (i: number): { data: Uint8Array; width: number; height: number } => {
    const w = 16 + (i % 5) * 7;
    const h = 12 + (i % 3) * 9;
    const data = new Uint8Array(w * h * 3);
    for (let p = 0; p < data.length; p++) data[p] = (p * 3 + i * 29 + (p % 7) * 11) & 255;
    return { data, width: w, height: h };
  };
  const modes: WriteMode[] = ['raw', 'jpg', 'smart', 'proportion'];
  for (const mode of modes) {
    const path = join(dir, `base-${mode}.beton`);
    const image = new RGBImageField({ writeMode: mode, smartThreshold: 25 * 25 * 3, compressProbability: 0.5 });
    const schema: Record<string, Field> =
      mode === 'jpg'
        ? { image, label: new IntField(), blob: new BytesField() }
        : mode === 'smart'
          ? { image, meta: new JSONField(), label: new IntField() }
          : { image, label: new IntField() };
    const rows = Array.from({ length: 30 }, (_, i) => ({
      image: img(i),
      label: i,
      blob: new Uint8Array(i % 4 === 0 ? 0 : 5 + i).fill(i),
      meta: { i, tag: `s${i}` },
    }));
    await new DatasetWriter(path, schema, { pageSize: 8192, allowSmallPages: true, numWorkers: 0 }).write(rows);
    bases.push(await describeBase(`written-${mode}`, path));
  }
});

describe.skipIf(!requires('a built dist/', 'npm run build:ts', existsSync(LIB)))('seeded reader/loader fuzzer', () => {
  it(
    `mutated fixtures and write modes: no abort, hang or stack trace; every rejection named (seed ${SEED})`,
    async () => {
      const t0 = performance.now();
      const rng = rngFrom(SEED);
      const mutants: Mutant[] = [];
      for (const base of bases) {
        for (let k = 0; k < PER_BASE; k++) {
          const [kind, bytes] = mutateOnce(base, Buffer.from(base.bytes), rng);
          const id = mutants.length;
          const path = join(dir, `m${id}-${base.name}.beton`);
          writeFileSync(path, bytes);
          mutants.push({ id, base: base.name, kind, path, imageField: base.imageField, oneSize: base.oneSize });
        }
      }

      // The Reader, as `beton dump` reads.
      const tReader = performance.now();
      const failures: string[] = [];
      const readerOutcomes: string[] = [];
      for (const m of mutants) {
        let outcome = 'ok';
        try {
          const r = await Reader.open(m.path);
          try {
            for (let i = 0; i < r.numSamples; i++) canonicalSample(r, i);
          } finally {
            r.close();
          }
        } catch (e) {
          if (e instanceof BetonFormatError) outcome = `BetonFormatError:${e.code}`;
          else {
            outcome = 'UNNAMED';
            failures.push(`reader, mutant ${m.id} (${m.base}, ${m.kind}): ${(e as Error).name}: ${(e as Error).message}`);
          }
        }
        readerOutcomes.push(outcome);
      }

      // The Loader, 1 and 2 workers, in child processes.
      const tLoader = performance.now();
      const jobs: LoaderJob[] = mutants.map((m) => ({
        file: m.path,
        workers: rng.next() < 0.5 ? 1 : 2,
        order: rng.next() < 0.5 ? 'sequential' : 'random',
        osCache: rng.next() < 0.75,
        field: m.imageField,
        decoder: m.imageField ? rng.pick(m.oneSize ? (['simple', 'center', 'rrc'] as const) : (['center', 'rrc'] as const)) : null,
      }));
      const { outcomes: loaderOutcomes, children } = await runLoaderJobs(jobs);
      loaderOutcomes.forEach((o, i) => {
        const m = mutants[i]!;
        // WORKER_FAILED would mean something escaped a worker's error handling: not allowed.
        if (o !== 'ok' && !/^(BetonFormatError:[A-Z_]+|LoaderError:(CORRUPT_SAMPLE|BAD_PIPELINE|BAD_OPTIONS))$/.test(o))
          failures.push(
            `loader (${jobs[i]!.workers} workers, ${jobs[i]!.decoder ?? 'default'}), mutant ${m.id} (${m.base}, ${m.kind}): ${o}`,
          );
      });

      // The CLI on a sample: exit 0/1, no stack trace, a named error.
      const tCli = performance.now();
      const cliOutcomes: string[] = [];
      for (const m of mutants.filter((_, i) => i % CLI_EVERY === 0)) {
        for (const cmd of ['dump', 'inspect']) {
          const r = spawnSync(process.execPath, [CLI, cmd, m.path], { encoding: 'utf8', timeout: HANG_MS, maxBuffer: 64 << 20 });
          const status = r.signal ? `signal ${r.signal}` : String(r.status);
          cliOutcomes.push(`${cmd}:${status}`);
          if (r.status !== 0 && r.status !== 1)
            failures.push(`beton ${cmd}, mutant ${m.id} (${m.base}, ${m.kind}): exit ${status}: ${r.stderr.slice(0, 300)}`);
          if (/\n\s+at /.test(r.stderr))
            failures.push(`beton ${cmd}, mutant ${m.id} (${m.base}, ${m.kind}): stack trace: ${r.stderr.slice(0, 300)}`);
          if (r.status === 1 && !/\[[A-Z][A-Z0-9_]+\]/.test(r.stderr))
            failures.push(`beton ${cmd}, mutant ${m.id} (${m.base}, ${m.kind}): unnamed error: ${r.stderr.slice(0, 300)}`);
        }
      }

      const seconds = (performance.now() - t0) / 1000;
      const summary = {
        seed: SEED,
        perBase: PER_BASE,
        baseFiles: bases.map((b) => b.name),
        mutants: mutants.length,
        runs: { reader: readerOutcomes.length, loader: loaderOutcomes.length, loaderChildren: children, cli: cliOutcomes.length },
        loaderWorkers: tally(jobs.map((j) => `${j.workers}w`)),
        mutations: tally(mutants.map((m) => m.kind.replace(/\(.*$/, ''))),
        reader: tally(readerOutcomes),
        loader: tally(loaderOutcomes.map((o) => (o.startsWith('ABORT') ? 'ABORT' : o))),
        cli: tally(cliOutcomes),
        // Where the Reader (beton dump) and the Loader disagree on whether the file is good.
        readerVsLoader: tally(
          readerOutcomes.flatMap((r, i) => {
            const l = loaderOutcomes[i]!;
            return (r === 'ok') === (l === 'ok') ? [] : [`${r} / ${l}`];
          }),
        ),
        disagreements: readerOutcomes
          .flatMap((r, i) => {
            const l = loaderOutcomes[i]!;
            return (r === 'ok') === (l === 'ok')
              ? []
              : [`mutant ${i} (${mutants[i]!.base}, ${mutants[i]!.kind}, ${jobs[i]!.decoder ?? 'default'}): ${r} / ${l}`];
          })
          .slice(0, 20),
        failures: failures.length,
        seconds: {
          mutate: sec(t0, tReader),
          reader: sec(tReader, tLoader),
          loader: sec(tLoader, tCli),
          cli: sec(tCli, performance.now()),
          total: Number(seconds.toFixed(1)),
        },
      };
      console.log(`fuzz summary ${JSON.stringify(summary, null, 1)}`);
      expect(failures).toEqual([]);
    },
    TEST_TIMEOUT,
  );
});
