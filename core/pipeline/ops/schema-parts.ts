import { z } from 'zod';
import { ELEMENT_TYPES } from '../dtypes.js';

/** Pieces several op schemas share. */
export const probability = z.number().min(0).max(1);
export const rgbFill = z.tuple([z.number().int().min(0).max(255), z.number().int().min(0).max(255), z.number().int().min(0).max(255)]);
export const elementTypeSchema = z.enum(ELEMENT_TYPES);
