// Seeded loader fuzz for the memory layer and resume states (issue 19, items 1, 2 and 7),
// beside test/reader/fuzz-reader.test.ts (which mutates file bytes):
//   - huge pages: a small file's pages moved onto random legal page sizes (64 KiB to 2^31)
//     at random places up to 2^35 bytes out, in sparse files; each is loaded with a random
//     memory manager, batch size, order and worker count, and every sample's bytes and label
//     must come back;
//   - foreign resume states: a real state with random fields replaced (types, ranges, other
//     loaders' identities, missing members) or random JSON; resume() must either accept it
//     (then the epoch yields exactly the batches left) or throw a LoaderError with a code,
//     never a TypeError.
// Bounded: ~20 s on 2 cores. BETON_FUZZ_ITERATIONS=N and BETON_FUZZ_SEED=S for longer runs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BytesField } from '../../core/fields/bytes-field.js';
import { IntField } from '../../core/fields/int-field.js';
import { LoaderError } from '../../core/loader/errors.js';
import { Loader, type LoaderState } from '../../core/loader/loader.js';
import type { OrderName } from '../../core/loader/orders/index.js';
import { DatasetWriter } from '../../core/writer/dataset-writer.js';
import { spreadPages } from '../helpers/sparse-beton.js';

const SEED = Number(process.env.BETON_FUZZ_SEED ?? 20261126) >>> 0;
const ITER = Math.max(1, Number(process.env.BETON_FUZZ_ITERATIONS ?? 6));
const TIMEOUT = process.env.BETON_FUZZ_ITERATIONS ? 3_600_000 : 120_000;

const dir = mkdtempSync(join(tmpdir(), 'beton-fuzz-mem-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

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

const PS = 2 ** 16;
const N = 30;
const blobOf = (i: number): Uint8Array => Uint8Array.from({ length: 9000 + 500 * (i % 7) }, (_, j) => (i * 53 + j * 7) & 255);

let small: string;
beforeAll(async () => {
  small = join(dir, 'small.beton');
  // 9–12 kB blobs on 64 KiB pages: ~6 samples a page, 5 pages.
  await new DatasetWriter(
    small,
    { blob: new BytesField(), label: new IntField() },
    { numWorkers: 0, pageSize: PS, allowSmallPages: true },
  ).write(Array.from({ length: N }, (_, i) => ({ blob: blobOf(i), label: 7 * i })));
});

describe(`loader memory fuzz (seed ${SEED})`, () => {
  it(
    'huge pages at random places: every sample loads with either memory manager',
    async () => {
      const rng = rngFrom(SEED);
      for (let it = 0; it < ITER; it++) {
        const pageSize = 2 ** (16 + rng.int(16)); // 2^16 … 2^31
        // Random gaps, the data ending before ~2^35 bytes.
        const room = Math.max(1, Math.floor(2 ** 35 / pageSize / 8));
        const places: number[] = [];
        for (let k = 0, p = -1; k < 8; k++) places.push((p += 1 + rng.int(room)));
        const file = join(dir, `huge-${it}.beton`);
        const size = spreadPages(small, file, { pageSize, place: (k) => places[k]! });
        const osCache = rng.next() < 0.5;
        const batchSize = 1 + rng.int(7);
        const order = rng.pick<OrderName>(['sequential', 'random', 'quasi_random']);
        const numWorkers = 1 + rng.int(2);
        const what = `iteration ${it}: page 2^${Math.log2(pageSize)}, ${(size / 2 ** 30).toFixed(1)} GiB, osCache ${osCache}, batch ${batchSize}, ${order}, ${numWorkers} workers`;
        const loader = await Loader.open(file, { batchSize, order, seed: it, numWorkers, osCache, dropLast: false });
        const seen = new Set<number>();
        try {
          for await (const b of loader) {
            const blobs = b.get('blob').data as Uint8Array;
            const row = blobs.length / b.size;
            b.sampleIds.forEach((id, k) => {
              const want = blobOf(id);
              const got = blobs.subarray(k * row, k * row + want.length);
              expect(Buffer.compare(Buffer.from(got), Buffer.from(want)), `${what}: sample ${id}`).toBe(0);
              expect(Number(b.get('label').data[k]), `${what}: label of ${id}`).toBe(7 * id);
              seen.add(id);
            });
          }
        } finally {
          await loader.close();
          rmSync(file, { force: true });
        }
        expect(seen.size, what).toBe(N);
      }
    },
    TIMEOUT,
  );

  it(
    'foreign and garbage resume states: accepted exactly or refused with a code',
    async () => {
      const rng = rngFrom(SEED ^ 0x5eed);
      const opts = { batchSize: 4, order: 'random' as const, seed: 9, numWorkers: 1, pipelines: { blob: null } };
      const loader = await Loader.open(small, opts);
      const other = await Loader.open(small, { ...opts, batchSize: 5 });
      try {
        const good = JSON.parse(JSON.stringify(loader.state())) as LoaderState;
        const foreign = JSON.parse(JSON.stringify(other.state())) as LoaderState;
        const junk: unknown[] = [null, undefined, 0, -1, 1.5, 2 ** 53, 'x', '', true, [], {}, [1, 2], { a: 1 }, '0'.repeat(64)];
        let accepted = 0;
        let refused = 0;
        for (let it = 0; it < 40 * ITER; it++) {
          const s = JSON.parse(JSON.stringify(good)) as Record<string, unknown> & { loader: Record<string, unknown> };
          const kind = rng.int(6);
          let state: unknown = s;
          if (kind === 0) state = rng.pick(junk);
          else if (kind === 1) s[rng.pick(['epoch', 'batch', 'seed', 'loader'])] = rng.pick(junk);
          else if (kind === 2) s.loader[rng.pick(Object.keys(s.loader))] = rng.pick(junk);
          else if (kind === 3)
            s.loader[rng.pick(Object.keys(s.loader))] = (foreign.loader as unknown as Record<string, unknown>)[
              rng.pick(Object.keys(s.loader))
            ];
          else if (kind === 4) s.batch = rng.int(loader.length + 3) - 1;
          else delete s[rng.pick(['epoch', 'batch', 'seed', 'loader'])];
          try {
            loader.resume(state as LoaderState);
          } catch (e) {
            expect(e, `state ${JSON.stringify(state)}`).toBeInstanceOf(LoaderError);
            expect(['BAD_OPTIONS', 'FOREIGN_STATE']).toContain((e as LoaderError).code);
            refused++;
            continue;
          }
          accepted++;
          // Accepted: the next epoch yields exactly the batches left.
          const from = (state as LoaderState).batch;
          let n = 0;
          for await (const b of loader) expect(b.index).toBe(from + n++);
          expect(n).toBe(loader.length - from);
        }
        expect(refused).toBeGreaterThan(0);
        expect(accepted).toBeGreaterThan(0);
      } finally {
        await loader.close();
        await other.close();
      }
    },
    TIMEOUT,
  );
});
