// Issue 23 item 2: a field type declares type/typeId/ffcvClass once (FieldIdentity): its
// FieldType spreads it and its Field class takes it (TypedField), so the registry, the
// descriptors a file is written with, `beton inspect` and the exports cannot disagree.
// And the RGB byte layout stays in the field: it says how a stored sample keeps its
// pixels (Field.imageMode), the writer and inspect only ask.
import { describe, expect, it } from 'vitest';
import type { FieldSpec } from '../../core/fields/field.js';
import { allFieldTypes, fieldFromDescriptor, fieldType } from '../../core/fields/registry.js';
import { IMAGE_MODE_JPG, IMAGE_MODE_RAW, RGBImageField } from '../../core/fields/rgb-image-field.js';
import { TorchTensorField } from '../../core/fields/ndarray-field.js';

/** A spec each built-in accepts (the arrays need a dtype and a shape). */
const specOf = (type: string): FieldSpec =>
  type === 'ndarray' || type === 'torch_tensor' ? { type, dtype: '<f4', shape: [2, 3] } : { type };

const BUILT_INS: ReadonlyArray<[string, number, string]> = [
  ['float', 0, 'FloatField'],
  ['int', 1, 'IntField'],
  ['rgb_image', 2, 'RGBImageField'],
  ['bytes', 3, 'BytesField'],
  ['ndarray', 4, 'NDArrayField'],
  ['json', 5, 'JSONField'],
  ['torch_tensor', 6, 'TorchTensorField'],
  ['video_clip', 255, 'VideoClipField'],
];

describe('field identity, declared once', () => {
  it.each(BUILT_INS)('%s: the type and the field it builds say type id %i, FFCV class %s', (type, typeId, ffcvClass) => {
    const ft = fieldType(type);
    expect({ type: ft.type, typeId: ft.typeId, ffcvClass: ft.ffcvClass }).toEqual({ type, typeId, ffcvClass });
    const field = ft.fromSpec(specOf(type));
    expect({ type: field.type, typeId: field.typeId, ffcvClass: field.ffcvClass }).toEqual({ type, typeId, ffcvClass });
    expect(field.toSpec().type).toBe(type);
  });

  it('every registered type builds fields of its own identity', () => {
    for (const ft of allFieldTypes().filter((t) => BUILT_INS.some(([name]) => name === t.type))) {
      const f = ft.fromSpec(specOf(ft.type));
      expect([f.type, f.typeId, f.ffcvClass]).toEqual([ft.type, ft.typeId, ft.ffcvClass]);
    }
  });

  it('a torch_tensor read back from its descriptor is a TorchTensorField (type 6), not an ndarray', () => {
    const written = new TorchTensorField({ dtype: '<i8', shape: [4] });
    const read = fieldFromDescriptor({ typeId: written.typeId, name: 't', arguments: written.encodeArguments() });
    expect(read).toBeInstanceOf(TorchTensorField);
    expect([read.type, read.typeId, read.ffcvClass]).toEqual(['torch_tensor', 6, 'TorchTensorField']);
  });
});

describe('image modes: the field reads its own metadata', () => {
  const meta = (mode: number): DataView => {
    const b = new DataView(new ArrayBuffer(13));
    b.setUint8(0, mode);
    return b;
  };

  it('RGBImageField: mode byte 0 is a JPEG, 1 is raw', () => {
    const f = new RGBImageField();
    expect(f.imageMode(meta(IMAGE_MODE_JPG))).toBe('jpg');
    expect(f.imageMode(meta(IMAGE_MODE_RAW))).toBe('raw');
  });

  it('fields that store no images have no imageMode', () => {
    for (const [type] of BUILT_INS.filter(([t]) => t !== 'rgb_image')) {
      expect(fieldType(type).fromSpec(specOf(type)).imageMode).toBeUndefined();
    }
  });
});
