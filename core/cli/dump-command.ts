import { parseArgs } from 'node:util';
import { openDump } from '../app/dump-dataset.js';
import { UsageError } from './usage-error.js';
import { printableJson } from '../format/printable.js';

export const DUMP_HELP = `beton dump FILE [--range a:b]

Prints one canonical JSON document {header, fields, samples}; samples use the encoding
of the golden manifests (test/fixtures/ffcv/README.md), so two implementations can be
compared with a diff.`;

/** Parses "a:b", "a:" or ":b" against n samples (Python slice semantics, no step). */
export function parseRange(spec: string, n: number): [number, number] {
  const m = /^(-?\d*):(-?\d*)$/.exec(spec);
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
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { range: { type: 'string' } } });
  if (positionals.length !== 1) throw new UsageError('expected exactly one FILE');
  const dump = await openDump(positionals[0]!);
  try {
    const [a, b] = values.range ? parseRange(values.range, dump.numSamples) : [0, dump.numSamples];
    const out = process.stdout;
    // `beton dump f | head` closes the pipe early: stop quietly instead of crashing.
    let closed = false;
    out.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') closed = true;
      else throw e;
    });
    const headText = printableJson(JSON.stringify(dump.head));
    out.write(headText.slice(0, -1) + ',"samples":[');
    let first = true;
    for await (const sample of dump.samples(a, b)) {
      if (closed) break;
      // Streamed so a large file does not build one huge string.
      const ok = out.write((first ? '\n' : ',\n') + printableJson(JSON.stringify(sample)));
      first = false;
      if (!ok) await new Promise((r) => out.once('drain', r));
    }
    out.write('\n]}\n');
    return 0;
  } finally {
    dump.close();
  }
}
