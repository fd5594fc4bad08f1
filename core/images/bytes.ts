/** The bytes from..to as Latin-1 text (magic numbers, marker names). */
export const ascii = (b: Uint8Array, from: number, to: number): string => String.fromCharCode(...b.subarray(from, to));
