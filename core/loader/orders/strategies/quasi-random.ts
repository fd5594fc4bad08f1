/**
 * QUASI_RANDOM: a page-aware shuffle (loader-semantics §4.3) that looks random at batch
 * scale while each process reads only a few pages at a time — what a page cache
 * (os_cache=False) needs to keep its working set small.
 *
 * Epoch e, with one shared generator seeded from (seed, e, "layout"):
 *  1. shuffle the order of the page groups, and the samples inside every group;
 *     concatenating them gives the page-ordered list L (length n).
 *  2. distributed: pad L to ceil(n/W)·W by repeating its head (as DistributedSampler pads)
 *     and give rank r the contiguous slice [r·perRank, (r+1)·perRank). Contiguous slices
 *     (rather than strides) keep every page with one rank — at most the W − 1 pages cut by
 *     slice borders, plus the few padding pages, are read by two ranks. Single process is
 *     the case W = 1.
 *  3. per rank, with a generator seeded from (seed, e, "pick", rank): walk the slice's page
 *     runs in order, keep up to 2·batchSize runs active, and draw each next sample from a
 *     uniformly chosen active run (FFCV's active-page buffer).
 * Unlike FFCV, nothing persists between epochs (FFCV shuffles its page table in place), so
 * sampleOrder(e) is a pure function of (context, e) and a resumed run can recompute it.
 * The generator is PCG64 seeded through SeedSequence([seed lo, seed hi, e lo, e hi, tag…]),
 * i.e. numpy's default_rng with that entropy list — handy for cross-checking in Python.
 */
import { checkEpoch, splitU53, validateContext } from '../context.js';
import { perRankCount } from '../distributed.js';
import { OrderError } from '../errors.js';
import { shuffleInPlace } from '../numpy-random.js';
import type { OrderContext, TraversalOrder } from '../types.js';
import { groupByHomePage, type PageGroups } from '../page-groups.js';
import { Pcg64 } from '../pcg64.js';

/** Domain-separation words so the layout and pick streams never coincide. */
const TAG_LAYOUT = 0x6c61796f; // "layo"
const TAG_PICK = 0x7069636b; // "pick"

/** The page-ordered sample list of one epoch and the group of each of its entries. */
interface Layout {
  samples: Uint32Array;
  groupOf: Uint32Array;
}

function layoutFor(groups: PageGroups, rng: Pcg64): Layout {
  const pageCount = groups.pages.length;
  const n = groups.members.length;
  const pageOrder = new Uint32Array(pageCount);
  for (let g = 0; g < pageCount; g++) pageOrder[g] = g;
  shuffleInPlace(rng, pageOrder);
  const samples = new Uint32Array(n);
  const groupOf = new Uint32Array(n);
  let o = 0;
  for (let k = 0; k < pageCount; k++) {
    const g = pageOrder[k] as number;
    const a = groups.starts[g] as number,
      b = groups.starts[g + 1] as number;
    samples.set(groups.members.subarray(a, b), o);
    groupOf.fill(g, o, o + b - a);
    shuffleInPlace(rng, samples, o, o + b - a);
    o += b - a;
  }
  return { samples, groupOf };
}

/**
 * Active-run buffer over padded positions [start, end) of L (position p ≥ n wraps to
 * p mod n — the padding). A run is a maximal stretch of one page group; runs enter the
 * buffer in slice order, and a finished run leaves by swap-removal (picks are uniform, so
 * the order inside the buffer carries no meaning and O(1) removal is fine).
 */
function pickFromRuns(layout: Layout, start: number, end: number, bufferRuns: number, rng: Pcg64): Uint32Array {
  const n = layout.samples.length;
  const count = end - start;
  const out = new Uint32Array(count);
  if (count === 0) return out;
  const at = (p: number): number => (p < n ? p : (p - n) % n);

  // Run boundaries: a new run starts where the group changes or where padding begins.
  const runStart: number[] = [start];
  for (let p = start + 1; p < end; p++) {
    if (p === n || layout.groupOf[at(p)] !== layout.groupOf[at(p - 1)]) runStart.push(p);
  }
  const runs = runStart.length;
  const cursor = Float64Array.from(runStart);
  const runEnd = new Float64Array(runs);
  for (let r = 0; r < runs; r++) runEnd[r] = r + 1 < runs ? (runStart[r + 1] as number) : end;

  const active = new Uint32Array(Math.min(bufferRuns, runs));
  let activeCount = 0;
  let nextRun = 0;
  for (let k = 0; k < count; k++) {
    while (nextRun < runs && activeCount < active.length) active[activeCount++] = nextRun++;
    const slot = rng.interval(activeCount - 1);
    const r = active[slot] as number;
    const p = cursor[r] as number;
    out[k] = layout.samples[at(p)] as number;
    cursor[r] = p + 1;
    if (p + 1 === runEnd[r]) active[slot] = active[--activeCount] as number;
  }
  return out;
}

export class QuasiRandomOrder implements TraversalOrder {
  readonly name = 'quasi_random';
  private readonly groups: PageGroups;
  private readonly seed: number;
  private readonly rank: number;
  private readonly worldSize: number;
  /** Max simultaneously active pages per process, FFCV's 2 × batch size. */
  private readonly bufferRuns: number;

  constructor(ctx: OrderContext) {
    validateContext(ctx);
    if (!ctx.pagesOfSample) {
      throw new OrderError('BAD_OPTIONS', 'quasi_random needs pagesOfSample (the page numbers of each sample, from the allocation table)', {
        order: this.name,
      });
    }
    this.groups = groupByHomePage(ctx.indices, ctx.pagesOfSample, this.name);
    this.seed = ctx.seed;
    this.rank = ctx.distributed?.rank ?? 0;
    this.worldSize = ctx.distributed?.worldSize ?? 1;
    this.bufferRuns = 2 * ctx.batchSize;
  }

  sampleOrder(epoch: number): Uint32Array {
    checkEpoch(this.name, this.seed, epoch);
    const n = this.groups.members.length;
    if (n === 0) return new Uint32Array(0);
    const [sLo, sHi] = splitU53(this.seed);
    const [eLo, eHi] = splitU53(epoch);
    const layout = layoutFor(this.groups, Pcg64.fromEntropy([sLo, sHi, eLo, eHi, TAG_LAYOUT]));
    const perRank = perRankCount(n, this.worldSize);
    const start = this.rank * perRank;
    const pick = Pcg64.fromEntropy([sLo, sHi, eLo, eHi, TAG_PICK, this.rank]);
    return pickFromRuns(layout, start, start + perRank, this.bufferRuns, pick);
  }
}
