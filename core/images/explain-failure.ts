import { cutShort, notAnImage, type Format } from './format-sniff.js';
import { FIX_DATA, FIX_FORMAT, FIX_SIZE, ImageReadError, MAX_INPUT_PIXELS, unreadable } from './read-error.js';
import { getSharp } from './sharp-decode.js';

/** libvips' messages, without prefixes and repeats. */
export function libMessage(e: unknown): string {
  const lines = (e instanceof Error ? e.message : String(e))
    .split('\n')
    .map((l) =>
      l
        .replace(/^Input (buffer|file) has corrupt header: /, '')
        .replace(/^(VipsJpeg|vipspng|VipsForeignLoad\w*|gifload|webp2vips|tiff2vips|heifload): /, '')
        .trim(),
    )
    .filter((l) => l !== '' && !/^source: bad seek/.test(l));
  const text = [...new Set(lines)].join('; ');
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/** Turns a decoder failure into what is wrong and what to do. */
export async function explain(e: unknown, buf: Buffer, format: Format): Promise<ImageReadError> {
  if (e instanceof ImageReadError) return e;
  const msg = libMessage(e);
  const kind = { jpeg: 'JPEG', png: 'PNG', gif: 'GIF', webp: 'WebP', tiff: 'TIFF', heif: 'AVIF', bmp: 'BMP', pnm: 'PNM', other: 'image' }[
    format
  ];
  if (format !== 'jpeg' && cutShort(buf, format))
    return unreadable(`the file is truncated (the ${kind} data ends before the image is complete)`, FIX_DATA);
  if (/unsupported image format/i.test(msg)) {
    if (format === 'heif') return unreadable('HEIC/HEIF images are not supported (only AVIF)', FIX_FORMAT);
    if (format !== 'other') return unreadable(`the ${kind} data is corrupt or uses a variant that cannot be decoded`, FIX_DATA);
    const what = notAnImage(buf);
    return unreadable(what, /can read/.test(what) ? FIX_FORMAT : 'remove it, or build with --on-error skip');
  }
  if (/exceeds pixel limit/i.test(msg)) {
    const sharp = await getSharp();
    const m = await sharp(buf, { limitInputPixels: false })
      .metadata()
      .catch(() => null);
    const size =
      m?.width && m.height ? `${m.width}x${m.height} = ${((m.width * m.height) / 1e6).toFixed(0)} megapixels` : 'too many pixels';
    return unreadable(`the image is too large (${size}; the limit is ${(MAX_INPUT_PIXELS / 1e6).toFixed(0)} megapixels)`, FIX_SIZE);
  }
  if (format === 'jpeg') {
    if (/data precision (\d+)/i.test(msg)) {
      const bits = /data precision (\d+)/i.exec(msg)![1];
      return unreadable(
        `it is a ${bits}-bit JPEG; only 8-bit JPEGs can be decoded (libjpeg-turbo)`,
        'convert it to an 8-bit JPEG or PNG, or remove it, or build with --on-error skip',
      );
    }
    if (/Unsupported JPEG process/i.test(msg))
      return unreadable(`it is a lossless or hierarchical JPEG, which libjpeg-turbo cannot decode (${msg})`, FIX_FORMAT);
    if (/premature end of JPEG (image|file)/i.test(msg))
      return unreadable('the file is truncated (the JPEG data ends before the image is complete)', FIX_DATA);
    if (/premature end of data segment/i.test(msg))
      return unreadable(
        'the file is truncated or corrupt (the JPEG image data stops before the image is complete: "premature end of data segment")',
        FIX_DATA,
      );
    return unreadable(`the JPEG data is corrupt (${msg})`, FIX_DATA);
  }
  if (/truncat|premature|unexpected end|end of (file|stream|data)|not enough data|short read|\beof\b/i.test(msg))
    return unreadable(`the file is truncated (the ${kind} data ends before the image is complete: ${msg})`, FIX_DATA);
  return unreadable(`the ${kind} data is corrupt (${msg})`, FIX_DATA);
}
