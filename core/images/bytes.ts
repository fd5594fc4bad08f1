/**
 * The bytes from..to as Latin-1 text (magic numbers, marker names). A loop, not
 * String.fromCharCode(...bytes) (a long range overflows the stack) nor TextDecoder('latin1')
 * (that is windows-1252: 0x89 of the PNG magic would become U+2030).
 */
export function ascii(b: Uint8Array, from: number, to: number): string {
  let s = '';
  for (let i = from; i < to && i < b.length; i++) s += String.fromCharCode(b[i]!);
  return s;
}
