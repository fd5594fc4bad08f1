/**
 * A Parquet library failure in words. hyparquet reports a damaged or unusual file by
 * tripping over it (`Cannot read properties of undefined (reading 'map')`): a TypeError or
 * RangeError is the file's fault, not a bug of ours, and is said so, with the library's
 * text kept at the end for a bug report.
 */
export function parquetFailure(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  if (e instanceof TypeError || e instanceof RangeError)
    return `the file is damaged, cut short, or uses a Parquet feature this reader does not support; check it with pyarrow (pq.read_table) or rewrite it (library error: ${msg})`;
  return msg;
}
