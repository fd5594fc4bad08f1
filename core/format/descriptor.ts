import { FIELD_ARGS_SIZE, FIELD_DESCRIPTOR_SIZE, FIELD_NAME_SIZE, HEADER_SIZE } from './constants.js';
import { BetonEncodeError, BetonFormatError } from './errors.js';

/** One 1041-byte entry of the field-descriptor table. */
export interface FieldDescriptor {
  typeId: number;
  name: string;
  /** Exactly 1024 bytes. */
  arguments: Uint8Array;
}

export function descriptorOffset(index: number): number {
  return HEADER_SIZE + FIELD_DESCRIPTOR_SIZE * index;
}

/**
 * Names are ASCII and at most 16 bytes. FFCV silently truncates longer names, so two
 * long names could collide; we refuse them instead.
 */
export function validateFieldName(name: string): void {
  if (name.length === 0) throw new BetonEncodeError('BAD_SCHEMA', 'field names must not be empty');
  if (!/^[\x01-\x7f]*$/.test(name)) {
    throw new BetonEncodeError('BAD_SCHEMA', `field name "${name}" is not ASCII; FFCV stores names as ASCII`, { field: name });
  }
  if (name.length > FIELD_NAME_SIZE) {
    throw new BetonEncodeError(
      'BAD_SCHEMA',
      `field name "${name}" is ${name.length} characters; the format stores at most ${FIELD_NAME_SIZE}. Use a shorter name`,
      { field: name },
    );
  }
}

export function encodeDescriptor(d: FieldDescriptor): Uint8Array {
  validateFieldName(d.name);
  if (d.arguments.byteLength !== FIELD_ARGS_SIZE) {
    throw new BetonEncodeError('BAD_SCHEMA', `field "${d.name}": arguments must be ${FIELD_ARGS_SIZE} bytes`);
  }
  const out = new Uint8Array(FIELD_DESCRIPTOR_SIZE);
  out[0] = d.typeId;
  for (let i = 0; i < d.name.length; i++) out[1 + i] = d.name.charCodeAt(i);
  out.set(d.arguments, 1 + FIELD_NAME_SIZE);
  return out;
}

/** Built-in type ids whose 1024 argument bytes FFCV always writes as zeros (to_binary = np.zeros). */
const ZERO_ARGUMENT_TYPES = new Set([0, 1, 2, 3, 5]);
/** NDArrayField / TorchTensorField: 32 × u64 shape, u64 text length, then the dtype text. */
const NDARRAY_TYPES = new Set([4, 6]);
const NDARRAY_TEXT_AT = 32 * 8 + 8;

/**
 * The first byte of a 1041-byte descriptor that FFCV's writer always leaves zero but is not,
 * as an offset inside the entry, or -1. FFCV starts from np.zeros: the name's bytes after
 * its first NUL stay zero, a float/int/image/bytes/JSON field writes no arguments at all,
 * and an NDArray's arguments end with its dtype text. A descriptor that breaks this is not
 * one FFCV (or we) wrote: most often num_fields was edited and the "table" runs into the
 * metadata. Custom fields (255) own their arguments and are not checked; neither is a
 * built-in whose NDArray text length is itself wrong (parseArguments names that).
 */
export function strayDescriptorByte(bytes: Uint8Array): number {
  const typeId = bytes[0]!;
  const nameEnd = 1 + FIELD_NAME_SIZE;
  const nul = bytes.subarray(1, nameEnd).indexOf(0);
  if (nul >= 0) {
    for (let i = 1 + nul; i < nameEnd; i++) if (bytes[i] !== 0) return i;
  }
  let argsFrom: number;
  if (ZERO_ARGUMENT_TYPES.has(typeId)) argsFrom = 0;
  else if (NDARRAY_TYPES.has(typeId)) {
    const v = new DataView(bytes.buffer, bytes.byteOffset + nameEnd, FIELD_ARGS_SIZE);
    const len = v.getBigUint64(NDARRAY_TEXT_AT - 8, true);
    if (len > BigInt(FIELD_ARGS_SIZE - NDARRAY_TEXT_AT)) return -1;
    argsFrom = NDARRAY_TEXT_AT + Number(len);
  } else return -1;
  for (let i = nameEnd + argsFrom; i < FIELD_DESCRIPTOR_SIZE; i++) if (bytes[i] !== 0) return i;
  return -1;
}

export function decodeDescriptor(bytes: Uint8Array, index: number, file = '<buffer>'): FieldDescriptor {
  if (bytes.byteLength < FIELD_DESCRIPTOR_SIZE) {
    throw new BetonFormatError('TRUNCATED', `${file}: field descriptor ${index} is truncated`, {
      file,
      offset: descriptorOffset(index),
    });
  }
  const nameBytes = bytes.subarray(1, 1 + FIELD_NAME_SIZE);
  let end = nameBytes.indexOf(0);
  if (end < 0) end = FIELD_NAME_SIZE;
  let name = '';
  for (let i = 0; i < end; i++) {
    const c = nameBytes[i]!;
    if (c > 0x7f) {
      throw new BetonFormatError('BAD_FIELD', `${file}: field ${index} has a non-ASCII name; the field table is corrupt`, {
        file,
        offset: descriptorOffset(index) + 1 + i,
      });
    }
    name += String.fromCharCode(c);
  }
  return {
    typeId: bytes[0]!,
    name,
    arguments: bytes.slice(1 + FIELD_NAME_SIZE, FIELD_DESCRIPTOR_SIZE),
  };
}
