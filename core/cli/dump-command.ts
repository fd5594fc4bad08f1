import { canonicalSample } from '../reader/canonical.js';
import { summarize } from '../reader/inspect.js';
import { Reader } from '../reader/reader.js';
import { flagHelp } from './flags/flag-help.js';
import { parseFlags, valueFlag, type FlagTable } from './flags/flag-table.js';
import { matching } from './flags/parsers.js';
import { UsageError } from './usage-error.js';
import { printableJson } from '../format/printable.js';

/** "a:b", "a:" or ":b" (Python slice bounds, negative from the end). */
const RANGE = /^(-?\d*):(-?\d*)$/;

export const DUMP_FLAGS = {
  range: valueFlag('a:b', matching(RANGE, 'a:b (Python slice bounds, e.g. 0:100 or -10:)'), 'only samples a..b-1 (default: all)'),
} satisfies FlagTable;

export const DUMP_HELP = `beton dump FILE [--range a:b]

Prints one canonical JSON document {header, fields, samples}; samples use the encoding
of the golden manifests (test/fixtures/ffcv/README.md), so two implementations can be
compared with a diff.

${flagHelp(DUMP_FLAGS)}`;

/** Parses "a:b", "a:" or ":b" against n samples (Python slice semantics, no step). */
export function parseRange(spec: string, n: number): [number, number] {
  const m = RANGE.exec(spec);
  if (!m) throw new UsageError(`--range expects a:b, got "${spec}"`);
  const norm = (s: string, dflt: number): number => {
    if (s === '') return dflt;
    const v = Number(s);
    return Math.min(n, Math.max(0, v < 0 ? n + v : v));
  };
  const a = norm(m[1]!, 0);
  return [a, Math.max(a, norm(m[2]!, n))];
}

export async function dumpCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, DUMP_FLAGS);
  if (positionals.length !== 1) throw new UsageError('expected exactly one FILE');
  const reader = await Reader.open(positionals[0]!);
  try {
    const [a, b] = values.range ? parseRange(values.range, reader.numSamples) : [0, reader.numSamples];
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
