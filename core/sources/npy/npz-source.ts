import type { FileHandle } from 'node:fs/promises';
import { pipeline } from 'node:stream';
import { createInflateRaw } from 'node:zlib';
import { BetonEncodeError } from '../../format/errors.js';
import { fileByteReader, streamByteReader, type ByteReader } from './byte-reader.js';
import type { NpyHeader } from './npy-header.js';
import { npyColumnType, npyRows, readNpyHeader } from './npy-rows.js';
import type { ColumnType, RowRange, TableReader, TableRow } from '../common/table-reader.js';
import { readZipDirectory, zipDataOffset, type ZipEntry } from './zip-directory.js';
import { openRegular, regularReadStream } from '../../native/regular-file.js';

interface Member {
  entry: ZipEntry;
  dataOffset: number;
  header: NpyHeader;
}

const STORED = 0;
const DEFLATED = 8;

/**
 * A .npz archive (np.savez / np.savez_compressed): each `NAME.npy` member is a column
 * NAME, and all must have the same length along axis 0. Stored members are read in place
 * with positional reads (a range is a seek); deflated members stream through
 * node:zlib's inflate (a range is inflate-and-drop). Only the members a build uses are read.
 */
export class NpzTable implements TableReader {
  readonly kind = 'npz';
  readonly textual = false;
  readonly columns: readonly string[];
  readonly length: number;
  readonly declared: ReadonlyArray<ColumnType | undefined>;

  private constructor(
    readonly path: string,
    private readonly members: Member[],
    private readonly size: number,
  ) {
    this.columns = members.map((m) => m.entry.name.replace(/\.npy$/, ''));
    this.length = members[0]!.header.shape[0]!;
    this.declared = members.map((m) => npyColumnType(m.header, `${path}:${m.entry.name}`));
  }

  static async open(path: string): Promise<NpzTable> {
    const { fh } = await openRegular(path);
    try {
      const { size } = await fh.stat();
      const entries = (await readZipDirectory(fh, size, path)).filter((e) => e.name.endsWith('.npy'));
      if (entries.length === 0) throw new BetonEncodeError('BAD_OPTIONS', `${path}: the archive holds no .npy members`, { source: path });
      // numpy.load keeps one of two same-named members; a build would silently lose the other.
      const seen = new Set<string>();
      for (const e of entries) {
        if (seen.has(e.name))
          throw new BetonEncodeError(
            'BAD_OPTIONS',
            `${path}: the archive holds two members named ${e.name}; one would be lost. Rewrite it with one array per name (numpy.savez)`,
            { source: path },
          );
        seen.add(e.name);
      }
      const members: Member[] = [];
      for (const entry of entries) {
        const dataOffset = await zipDataOffset(fh, entry, path);
        const reader = memberReader(path, fh, entry, dataOffset);
        try {
          members.push({ entry, dataOffset, header: await readNpyHeader(reader, `${path}:${entry.name}`) });
        } finally {
          await reader.close();
        }
      }
      const lengths = new Set(members.map((m) => m.header.shape[0]));
      if (lengths.size > 1) {
        const list = members.map((m) => `${m.entry.name} has ${m.header.shape[0]}`).join(', ');
        throw new BetonEncodeError(
          'BAD_OPTIONS',
          `${path}: all arrays must have the same length along axis 0 (one row per sample); ${list}`,
          { source: path },
        );
      }
      return new NpzTable(path, members, size);
    } finally {
      await fh.close();
    }
  }

  async sample(n: number): Promise<unknown[][]> {
    const out: unknown[][] = [];
    const all = this.columns.map((_, i) => i);
    for await (const r of this.rows({ start: 0, end: n }, all)) out.push([...r.values]);
    return out;
  }

  async *rows(range: RowRange, needed: readonly number[]): AsyncGenerator<TableRow> {
    const cols = [...new Set(needed)].filter((c) => c >= 0 && c < this.members.length);
    const { fh } = await openRegular(this.path);
    const readers: ByteReader[] = [];
    try {
      const iters = cols.map((c) => {
        const m = this.members[c]!;
        const reader = memberReader(this.path, fh, m.entry, m.dataOffset);
        readers.push(reader);
        return { c, it: this.memberRows(reader, m, range) };
      });
      const end = Math.min(range.end, this.length);
      for (let index = range.start; index < end; index++) {
        const values: unknown[] = new Array(this.columns.length);
        for (const { c, it } of iters) {
          const r = await it.next();
          if (r.done)
            throw new BetonEncodeError('BAD_OPTIONS', `${this.path}:${this.members[c]!.entry.name}: ended before row ${index}`, {
              source: this.path,
            });
          values[c] = r.value;
        }
        yield { index, values };
      }
    } finally {
      for (const r of readers) await r.close().catch(() => undefined);
      await fh.close();
    }
  }

  /** A member's rows, positioned past its header (re-read: cheap, and keeps one path for both methods). */
  private async *memberRows(reader: ByteReader, m: Member, range: RowRange): AsyncGenerator<unknown> {
    const where = `${this.path}:${m.entry.name}`;
    const h = await readNpyHeader(reader, where);
    yield* npyRows(reader, h, range.start, range.end, where);
  }

  sourceBytes(): number {
    return this.size;
  }
}

/** Bytes of a member's .npy stream: in place when stored, inflated on the fly when deflated. */
function memberReader(path: string, fh: FileHandle, entry: ZipEntry, dataOffset: number): ByteReader {
  const end = dataOffset + entry.compressedSize;
  if (entry.method === STORED) return fileByteReader(fh, dataOffset, end);
  if (entry.method === DEFLATED) {
    if (entry.compressedSize === 0) return fileByteReader(fh, dataOffset, dataOffset);
    // pipeline() (unlike pipe()) forwards a read error to the inflate stream we iterate.
    const inflated = pipeline(regularReadStream(path, { start: dataOffset, end: end - 1 }), createInflateRaw(), () => undefined);
    return streamByteReader(inflated);
  }
  throw new BetonEncodeError(
    'BAD_OPTIONS',
    `${path}: member ${entry.name} uses zip compression method ${entry.method}; only stored (np.savez) and deflated (np.savez_compressed) are supported`,
    { source: path },
  );
}
