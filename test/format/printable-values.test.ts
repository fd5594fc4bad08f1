import { describe, expect, it } from 'vitest';
import { printableValues } from '../../core/format/printable.js';

describe('printableValues', () => {
  it('escapes control bytes in every string of a stored value, keys named __proto__ kept as keys', () => {
    const stored = JSON.parse('{"path": "a\\u001b[2Jb", "list": ["x\\u009by"], "__proto__": {"polluted": "\\u001b]0;t\\u0007"}}') as Record<
      string,
      unknown
    >;
    const out = printableValues(stored);
    expect(out.path).toBe('a\\x1b[2Jb');
    expect(out.list).toEqual(['x\\x9by']);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
    expect((out as { polluted?: unknown }).polluted).toBeUndefined();
    expect(JSON.stringify(out)).toContain('"__proto__":{"polluted":"\\\\x1b]0;t\\\\x07"}');
  });
});
