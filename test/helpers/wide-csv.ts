/**
 * A CSV of `n` numbered columns (c0, c1, …) and one row of values i % 100, and the check that
 * its build is one ndarray field of `n` values read back in order. Shared by
 * test/sources/wide-csv.test.ts (fast, narrow) and wide-csv-scale.test.ts (slow, 130 000 columns).
 */
import { writeFileSync } from 'node:fs';
import { expect } from 'vitest';
import { Reader } from '../../core/reader/reader.js';

export function writeNumberedCsv(path: string, n: number): void {
  writeFileSync(
    path,
    `${Array.from({ length: n }, (_, i) => `c${i}`).join(',')}\n${Array.from({ length: n }, (_, i) => i % 100).join(',')}\n`,
  );
}

export async function expectNumberedColumnsBack(beton: string, n: number): Promise<void> {
  const reader = await Reader.open(beton);
  try {
    expect(reader.fields.length).toBe(1);
    const v = reader.read(0)[reader.fields[0]!.name] as { shape: number[]; bytes: Uint8Array };
    expect(v.shape).toEqual([n]);
    const last = new DataView(v.bytes.buffer, v.bytes.byteOffset + v.bytes.byteLength - 8, 8);
    expect(Number(last.getBigInt64(0, true))).toBe((n - 1) % 100);
  } finally {
    reader.close();
  }
}
