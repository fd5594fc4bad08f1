import type { AsyncBuffer, RowGroup } from 'hyparquet';
import { parquetHeader } from 'hyparquet/src/column.js';

/**
 * A check of every page header of the column chunks a read is about to decode, before
 * hyparquet decodes them. hyparquet trusts the headers: a data page v2 whose
 * `repetition_levels_byte_length` is missing sets its read offset to NaN, and the level
 * decoder then spins forever (a random byte flip hung a build for minutes, issue 19 item 14).
 * Each header must parse, hold non-negative integer sizes and counts, and lie inside its
 * chunk, and each chunk inside the file: otherwise the file is refused here, at once, with
 * the column and offset named. Reads only the headers' chunks; decoding is left to hyparquet.
 */
export async function checkParquetPages(file: AsyncBuffer, group: RowGroup, columns: readonly string[]): Promise<void> {
  for (const chunk of group.columns) {
    const meta = chunk.meta_data;
    if (!meta || !columns.includes(meta.path_in_schema[0] ?? '')) continue;
    const name = meta.path_in_schema.join('.');
    const start = Number(meta.dictionary_page_offset || meta.data_page_offset);
    const size = Number(meta.total_compressed_size);
    const values = Number(meta.num_values);
    const bad = (what: string): Error => new RangeError(`column "${name}": ${what}`);
    if (!isCount(start) || !isCount(size) || start + size > file.byteLength)
      throw bad(`its chunk (bytes ${start}..${start + size}) lies outside the file (${file.byteLength} bytes)`);
    if (!isCount(values) || values > 2 ** 31) throw bad(`impossible value count ${meta.num_values}`);
    const bytes = await file.slice(start, start + size);
    const reader = { view: new DataView(bytes), offset: 0 };
    let seen = 0;
    while (seen < values && reader.offset < bytes.byteLength) {
      const at = start + reader.offset;
      let h: ReturnType<typeof parquetHeader>;
      try {
        h = parquetHeader(reader);
      } catch {
        throw bad(`unreadable page header at byte ${at}`);
      }
      const end = reader.offset + h.compressed_page_size;
      if (!isCount(h.compressed_page_size) || !isCount(h.uncompressed_page_size) || end > bytes.byteLength)
        throw bad(`page at byte ${at} has sizes outside its chunk`);
      if (h.type === 'DATA_PAGE') {
        const d = h.data_page_header;
        if (!d || !isCount(d.num_values)) throw bad(`data page at byte ${at} has no valid value count`);
        seen += d.num_values;
      } else if (h.type === 'DATA_PAGE_V2') {
        const d = h.data_page_header_v2;
        const levels = (d?.definition_levels_byte_length ?? NaN) + (d?.repetition_levels_byte_length ?? NaN);
        if (
          !d ||
          ![d.num_values, d.num_nulls, d.num_rows, d.definition_levels_byte_length, d.repetition_levels_byte_length].every(isCount) ||
          levels > h.compressed_page_size ||
          levels > h.uncompressed_page_size
        )
          throw bad(`data page v2 at byte ${at} has missing or impossible counts and level sizes`);
        seen += d.num_values;
      } else if (h.type === 'DICTIONARY_PAGE') {
        if (!h.dictionary_page_header || !isCount(h.dictionary_page_header.num_values))
          throw bad(`dictionary page at byte ${at} has no valid value count`);
      }
      reader.offset = end;
    }
  }
}

const isCount = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;
