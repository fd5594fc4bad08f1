/**
 * The per-sample metadata record: a numpy structured dtype built with align=True from
 * the fields' metadata types. The layout is not stored in the file; reader and writer
 * both rebuild it from the field list.
 */
export interface MetadataType {
  /** Bytes one field's metadata occupies in the record. */
  size: number;
  /** numpy alignment: 8 for i8/f8/u8 scalars, 1 for FFCV's packed (non-aligned) structs. */
  align: number;
}

export interface RecordLayout {
  /** Byte offset of each field's member within the record, in field order. */
  offsets: number[];
  /** Record size (numpy itemsize), including tail padding. */
  size: number;
}

const roundUp = (x: number, a: number): number => Math.ceil(x / a) * a;

export function recordLayout(members: readonly MetadataType[]): RecordLayout {
  let offset = 0;
  let maxAlign = 1;
  const offsets: number[] = [];
  for (const m of members) {
    offset = roundUp(offset, m.align);
    offsets.push(offset);
    offset += m.size;
    maxAlign = Math.max(maxAlign, m.align);
  }
  return { offsets, size: roundUp(offset, maxAlign) };
}
