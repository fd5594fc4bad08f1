import { canonicalSample } from '../reader/canonical.js';
import { summarize } from '../reader/inspect.js';
import { Reader } from '../reader/reader.js';
import { flagHelp } from './flags/flag-help.js';
import { parseFlags, valueFlag, type FlagTable } from './flags/flag-table.js';
import { bad, good, type ValueParser } from './flags/value-parser.js';
import { UsageError } from './usage-error.js';
import { printableJson } from '../format/printable.js';

/** Python slice bounds, `null` where left out; resolved against the file's sample count by sliceOf. */
type Bounds = readonly [number | null, number | null];

/** `--range a:b`, `a:` or `:b` (negative from the end, as Python). */
const sliceBounds: ValueParser<Bounds> = {
  expects: 'a:b (Python slice bounds, e.g. 0:100 or -10:)',
  read: (t) => {
    const m = /^(-?\d*):(-?\d*)$/.exec(t);
    const at = (s: string): number | null => (s === '' ? null : Number(s));
    return m ? good([at(m[1]!), at(m[2]!)] as const) : bad(t);
  },
};

export const DUMP_FLAGS = {
  range: valueFlag('a:b', sliceBounds, 'only samples a..b-1 (default: all)'),
} satisfies FlagTable;

export const DUMP_HELP = `beton dump FILE [--range a:b]

Prints one canonical JSON document {header, fields, samples}; samples use the encoding
of the golden manifests (test/fixtures/ffcv/README.md), so two implementations can be
compared with a diff.

${flagHelp(DUMP_FLAGS)}`;

/** The samples [a, b) of n that slice bounds select (Python slice semantics, no step). */
export function sliceOf([from, to]: Bounds, n: number): [number, number] {
  const norm = (v: number | null, dflt: number): number => (v === null ? dflt : Math.min(n, Math.max(0, v < 0 ? n + v : v)));
  const a = norm(from, 0);
  return [a, Math.max(a, norm(to, n))];
}

export async function dumpCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, DUMP_FLAGS);
  if (positionals.length !== 1) throw new UsageError('expected exactly one FILE');
  const reader = await Reader.open(positionals[0]!);
  try {
    const [a, b] = sliceOf(values.range ?? [null, null], reader.numSamples);
    const s = summarize(reader);
    const out = process.stdout;
    // `beton dump f | head` closes the pipe early: stop quietly instead of crashing.
    let closed = false;
    out.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') closed = true;
      else throw e;
    });
    const head = {
      header: {
        version: s.version,
        num_fields: s.fields.length,
        page_size: s.pageSize,
        num_samples: s.numSamples,
        alloc_table_ptr: reader.header.allocTablePtr,
      },
      fields: s.fields.map((f) => ({ name: f.name, type_id: f.typeId, type: f.ffcvClass, arguments: f.arguments })),
    };
    const headText = printableJson(JSON.stringify(head));
    out.write(headText.slice(0, -1) + ',"samples":[');
    for (let i = a; i < b && !closed; i++) {
      // A remote file: the next samples' pages in parallel GETs (a local file: nothing).
      if ((i - a) % 256 === 0) await reader.prefetch(Array.from({ length: Math.min(256, b - i) }, (_, k) => i + k));
      // Streamed so a large file does not build one huge string.
      const ok = out.write((i > a ? ',\n' : '\n') + printableJson(JSON.stringify(canonicalSample(reader, i))));
      if (!ok) await new Promise((r) => out.once('drain', r));
    }
    out.write('\n]}\n');
    return 0;
  } finally {
    reader.close();
  }
}
