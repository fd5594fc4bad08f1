import { z } from 'zod';

/** Pieces several op schemas share. */
export const probability = z.number().min(0).max(1);
export const rgbFill = z.tuple([z.number().int().min(0).max(255), z.number().int().min(0).max(255), z.number().int().min(0).max(255)]);
export const elementTypeSchema = z.enum([
  'uint8',
  'int8',
  'uint16',
  'int16',
  'uint32',
  'int32',
  'float16',
  'float32',
  'float64',
  'int64',
  'uint64',
]);
