/**
 * Groups the requested samples by the page that holds their heap data — the preparation
 * step of quasi_random (loader-semantics §4.3), done once per loader.
 *
 * Differences from FFCV, all deliberate:
 * - Each sample belongs to exactly one group, its *home page* (the lowest page it has data
 *   on). FFCV lists a sample under every page it touches, so a sample spanning two pages can
 *   be emitted twice and another never.
 * - Groups are compact (one per page that actually holds requested samples) instead of a
 *   table sized by the file's highest page number.
 * - Ids without heap data and duplicate ids are refused here with a clear error; in FFCV
 *   they make the epoch loop run dry and crash.
 */
import { OrderError } from './errors.js';

export interface PageGroups {
  /** File-absolute page number of each group, ascending. */
  readonly pages: Float64Array;
  /** Group g's members are members[starts[g] … starts[g+1]), ascending sample ids. */
  readonly starts: Uint32Array;
  readonly members: Uint32Array;
}

const EXAMPLES = 5;

export function groupByHomePage(indices: Uint32Array, pagesOfSample: (sampleId: number) => readonly number[], order: string): PageGroups {
  const n = indices.length;
  const home = new Float64Array(n);
  const withoutData: number[] = [];
  let missing = 0;
  for (let i = 0; i < n; i++) {
    const id = indices[i] as number;
    const pages = pagesOfSample(id);
    if (pages.length === 0) {
      missing++;
      if (withoutData.length < EXAMPLES) withoutData.push(id);
      continue;
    }
    let min = Infinity;
    for (const p of pages) if (p < min) min = p;
    if (!Number.isSafeInteger(min) || min < 0) {
      throw new OrderError('BAD_OPTIONS', `${order}: pagesOfSample(${id}) returned an invalid page number ${min}`, { order, sample: id });
    }
    home[i] = min;
  }
  if (missing > 0) {
    throw new OrderError(
      'NO_HEAP_DATA',
      `${order} groups samples by the page holding their heap data, but ${missing} of ${n} requested samples own none ` +
        `(e.g. sample ${withoutData.join(', ')}); use the 'random' order for such datasets or pass only samples with heap fields`,
      { order, sample: withoutData[0] as number },
    );
  }

  // Dense group numbers in ascending page order, so the grouping does not depend on the
  // order of `indices` (only the set of ids matters).
  const counts = new Map<number, number>();
  for (let i = 0; i < n; i++) counts.set(home[i] as number, (counts.get(home[i] as number) ?? 0) + 1);
  const pages = Float64Array.from(counts.keys()).sort();
  const groupOfPage = new Map<number, number>();
  const starts = new Uint32Array(pages.length + 1);
  for (let g = 0; g < pages.length; g++) {
    const page = pages[g] as number;
    groupOfPage.set(page, g);
    starts[g + 1] = (starts[g] as number) + (counts.get(page) as number);
  }
  const fill = starts.slice(0, pages.length);
  const members = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const g = groupOfPage.get(home[i] as number) as number;
    members[(fill[g] as number)++] = indices[i] as number;
  }

  // Copies of one id share a home page, so sorting each group exposes every duplicate.
  for (let g = 0; g < pages.length; g++) {
    const a = starts[g] as number,
      b = starts[g + 1] as number;
    if (b - a < 2) continue;
    const group = members.subarray(a, b).sort();
    for (let k = 1; k < group.length; k++) {
      if (group[k] === group[k - 1]) {
        throw new OrderError(
          'DUPLICATE_INDEX',
          `${order} visits each sample once per epoch, but sample ${group[k]} appears more than once in indices`,
          {
            order,
            sample: group[k] as number,
          },
        );
      }
    }
  }
  return { pages, starts, members };
}
