import type { ImageCodec } from '../fields/image-codec.js';
import { decodeJpeg, encodeJpeg, resizeArea } from '../native/jpeg.js';
import { loadRGB } from './load-rgb.js';
import { probePassThrough } from './pass-through.js';
import { transcodeSource } from './transcode-source.js';
import { sourceHeaderDims } from './source-file.js';

/** The ImageCodec the pure fields get in Node: source reading here, pixel work in the addon. */
let codec: ImageCodec | null = null;
export function nodeImageCodec(): ImageCodec {
  codec ??= {
    load: loadRGB,
    headerDims: sourceHeaderDims,
    resizeArea,
    encodeJpeg,
    decodeJpeg,
    probePassThrough,
    transcode: transcodeSource,
  };
  return codec;
}
