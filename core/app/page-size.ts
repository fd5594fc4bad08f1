/**
 * The page size a detected source is proposed: FFCV's 8 MiB suits image datasets (the Sources
 * estimate suggests smaller pages from encoded samples), but a small table's file is mostly
 * padding with it (a 15.7 KiB CSV made a 16 MiB file: the header region and the last page are
 * whole pages). A table proposes the smallest page that keeps its data to about PAGES_PER_FILE
 * pages, never under FFCV's writer minimum (PAGE_SIZE.minWriter, 2 MiB: FFCV's own writer
 * refuses smaller pages, and files stay writable by both) nor over the default. So a small
 * table makes a file of about 4 MiB (two 2 MiB pages), not 16.
 */
import { PAGE_SIZE } from '../api/constants.js';
import type { DetectedSource } from '../api/contract.js';

/** Sources whose rows are small values (no images): their size on disk is about their size in the file. */
const TABLES = new Set(['table', 'csv', 'tsv', 'parquet', 'jsonl', 'npy', 'npz']);
/** Data pages a table's bytes should fill at most before pages grow. */
const PAGES_PER_FILE = 8;

export function proposePageSize(kind: string, sourceBytes: number | null): DetectedSource['pageSize'] {
  if (!TABLES.has(kind) || sourceBytes === null || !Number.isFinite(sourceBytes)) return undefined;
  let bytes: number = PAGE_SIZE.minWriter;
  while (bytes < PAGE_SIZE.default && bytes * PAGES_PER_FILE < sourceBytes) bytes *= 2;
  if (bytes === PAGE_SIZE.default) return undefined;
  const mib = (n: number): string => `${n / 2 ** 20} MiB`;
  return {
    bytes,
    why: `${mib(bytes)} pages for a table of ${sourceBytes < 2 ** 20 ? `${Math.ceil(sourceBytes / 1024)} KiB` : mib(Math.ceil(sourceBytes / 2 ** 20) * 2 ** 20)}: FFCV's ${mib(PAGE_SIZE.default)} would make the file mostly padding; ${mib(PAGE_SIZE.minWriter)} is the smallest FFCV's writer takes.`,
  };
}
