import { ascii } from './bytes.js';

export type Format = 'jpeg' | 'png' | 'gif' | 'webp' | 'tiff' | 'bmp' | 'pnm' | 'heif' | 'other';

export function sniff(b: Uint8Array): Format {
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (b.length >= 8 && ascii(b, 0, 8) === '\x89PNG\r\n\x1a\n') return 'png';
  if (b.length >= 6 && /^GIF8[79]a$/.test(ascii(b, 0, 6))) return 'gif';
  if (b.length >= 12 && ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 12) === 'WEBP') return 'webp';
  if (b.length >= 4 && (ascii(b, 0, 4) === 'II*\0' || ascii(b, 0, 4) === 'MM\0*')) return 'tiff';
  if (
    b.length >= 18 &&
    b[0] === 0x42 &&
    b[1] === 0x4d &&
    [12, 40, 52, 56, 64, 108, 124].includes(b[14]! | (b[15]! << 8)) &&
    b[16] === 0 &&
    b[17] === 0
  )
    return 'bmp';
  if (b.length >= 4 && b[0] === 0x50 && b[1]! >= 0x31 && b[1]! <= 0x36 && /^\s+[#0-9]/.test(ascii(b, 2, Math.min(b.length, 64))))
    return 'pnm';
  if (b.length >= 12 && ascii(b, 4, 8) === 'ftyp') return 'heif';
  return 'other';
}

/** Why bytes that no decoder recognised are not an image, in words. */
export function notAnImage(b: Uint8Array): string {
  const head = Buffer.from(b.subarray(0, 512)).toString('utf8');
  const start = head
    .replace(/^\uFEFF/, '')
    .trimStart()
    .toLowerCase();
  if (start.startsWith('<!doctype html') || start.startsWith('<html') || start.startsWith('<head')) {
    return 'the file is an HTML page, not an image (an error page saved by a failed download?)';
  }
  const kinds: Array<[string, string]> = [
    ['%PDF', 'a PDF document'],
    ['PK\x03\x04', 'a ZIP archive'],
    ['\x1f\x8b', 'a gzip archive'],
    ['8BPS', 'a Photoshop (PSD) file'],
    ['\xff\x0a', 'a JPEG XL image'],
    ['\0\0\0\x0cJXL ', 'a JPEG XL image'],
    ['\0\0\x01\0', 'a Windows icon (ICO)'],
  ];
  const bin = ascii(b, 0, Math.min(b.length, 12));
  for (const [magic, what] of kinds) if (bin.startsWith(magic)) return `the file is ${what}, not an image we can read`;
  const text = b.subarray(0, 512).every((c) => c === 9 || c === 10 || c === 13 || (c >= 32 && c !== 127));
  if (text) {
    const quote = head.replace(/\s+/g, ' ').trim().slice(0, 40);
    return `the file is not an image: it holds text ("${quote}${head.length > 40 ? '…' : ''}")`;
  }
  const hex = Buffer.from(b.subarray(0, 8)).toString('hex').replace(/(..)/g, '$1 ').trim();
  return `the file is not an image in a format we can read (it starts with bytes ${hex}; readable: JPEG, PNG, WebP, TIFF, GIF, AVIF, BMP, PPM/PGM)`;
}

/** Whether a file's own structure shows it was cut short (cheap checks, no decoding). */
export function cutShort(b: Uint8Array, format: Format): boolean {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  switch (format) {
    case 'png':
      return !(b.length >= 12 && ascii(b, b.length - 8, b.length - 4) === 'IEND');
    case 'gif':
      return b[b.length - 1] !== 0x3b; // trailer
    case 'webp':
      return b.length < 12 || v.getUint32(4, true) + 8 > b.length;
    case 'tiff': {
      if (b.length < 8) return true;
      const ifd = v.getUint32(4, b[0] === 0x49);
      return ifd + 2 > b.length;
    }
    default:
      return false;
  }
}
