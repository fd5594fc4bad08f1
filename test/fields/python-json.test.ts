import { expect, it } from 'vitest';
import { parsePythonJson, pythonJsonDumps } from '../../core/fields/python-json.js';

it('keeps a "__proto__" key as a key (Python dicts have no prototype), so the text round-trips', () => {
  const text = '{"a": 1, "__proto__": {"x": [1.0]}, "b": {"__proto__": 5}}';
  const v = parsePythonJson(text, { keepFloats: true }) as Record<string, unknown>;
  expect(Object.keys(v)).toEqual(['a', '__proto__', 'b']);
  expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
  expect(pythonJsonDumps(v)).toBe(text);
});
