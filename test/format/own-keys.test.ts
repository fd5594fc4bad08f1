/**
 * setOwn/ownValue (core/format/own-keys.ts): names users choose are own entries, never the
 * prototype or something inherited, through both of setOwn's paths (assignment for every
 * name but `__proto__`, defineProperty for that one).
 */
import { describe, expect, it } from 'vitest';
import { ownValue, setOwn } from '../../core/format/own-keys.js';

describe('own keys', () => {
  it('stores every name as an own, enumerable entry, __proto__ and Object.prototype names included', () => {
    const names = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'label', ''];
    const rec: Record<string, number> = {};
    names.forEach((n, i) => setOwn(rec, n, i));
    expect(Object.getPrototypeOf(rec)).toBe(Object.prototype);
    expect(Object.keys(rec)).toEqual(names);
    names.forEach((n, i) => {
      expect(Object.getOwnPropertyDescriptor(rec, n)).toEqual({ value: i, enumerable: true, writable: true, configurable: true });
      expect(ownValue(rec, n)).toBe(i);
    });
    expect(JSON.parse(JSON.stringify(rec))).toEqual(Object.fromEntries(names.map((n, i) => [n, i])));
  });

  it('overwrites an entry, and reads nothing inherited', () => {
    const rec: Record<string, string> = {};
    setOwn(rec, 'x', 'a');
    setOwn(rec, 'x', 'b');
    setOwn(rec, '__proto__', 'p');
    setOwn(rec, '__proto__', 'q');
    expect(rec).toEqual(
      Object.fromEntries([
        ['x', 'b'],
        ['__proto__', 'q'],
      ]),
    );
    expect(ownValue({}, 'toString')).toBeUndefined();
    expect(ownValue({}, '__proto__')).toBeUndefined();
  });
});
