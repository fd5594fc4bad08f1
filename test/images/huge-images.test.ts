// Issue 19 item 13: image files of 2 GiB and more (sparse files: no disk used) and headers
// announcing too many pixels are refused from their size and header, with messages that
// say so (not "the file shrank" or a negative length), and without reading them whole:
// the build's peak memory stays far below the files' size.
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  closeSync,
  ftruncateSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync, crc32 } from 'node:zlib';
import { requires } from '../helpers/requires.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI } from '../helpers/cli.js';
import { SAMPLE_IMAGES } from '../helpers/cli-inputs.js';
import { headerDims } from '../../core/images/header-limits.js';

// Issue 33 item 11: the peak-memory check needs GNU time; without it requires() says so (and fails under CI).
const HAVE_TIME = requires(
  'GNU time (/usr/bin/time)',
  "apt-get install -y time (the build's peak memory is checked with it)",
  existsSync('/usr/bin/time'),
);

const dir = mkdtempSync(join(tmpdir(), 'beton-huge-'));
const cls = join(dir, 'imgs', 'a');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td) >>> 0);
  return Buffer.concat([len, td, crc]);
}
/** A PNG whose header claims w×h (its data is empty: it is refused before decoding). */
function pngHeader(w: number, h: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.alloc(0))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
/** A sparse file of `size` bytes starting with `head`. */
function sparse(path: string, head: Buffer, size: number): void {
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, head, 0, head.length, 0);
    ftruncateSync(fd, size);
  } finally {
    closeSync(fd);
  }
}

beforeAll(() => {
  mkdirSync(cls, { recursive: true });
  const circles = join(SAMPLE_IMAGES, 'circles');
  copyFileSync(join(circles, readdirSync(circles).sort()[0]!), join(cls, 'ok.jpg'));
  sparse(join(cls, 'big-jpeg.jpg'), Buffer.from([0xff, 0xd8, 0xff, 0xe0]), 2.5 * 2 ** 30);
  sparse(join(cls, 'big-nothing.png'), Buffer.from('not an image'), Math.round(3.2 * 2 ** 30));
  writeFileSync(join(cls, 'wide.png'), pngHeader(20000, 20000));
});

describe('huge image files', () => {
  it('the header tells PNG/JPEG dimensions', () => {
    expect(headerDims(pngHeader(16000, 16000))).toEqual({ width: 16000, height: 16000 });
  });

  it('a build skips them with the right reasons and bounded memory', () => {
    const time = HAVE_TIME;
    const args = [CLI, 'build', join(dir, 'imgs'), '-o', join(dir, 'o.beton'), '--on-error', 'skip', '--workers', '1'];
    const r = time
      ? spawnSync('/usr/bin/time', ['-f', 'MAXRSS_KB=%M', process.execPath, ...args], { encoding: 'utf8', timeout: 120_000 })
      : spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 120_000 });
    expect(r.status, r.stderr).toBe(0);
    const skipped = JSON.parse(readFileSync(join(dir, 'o.beton.skipped.json'), 'utf8')) as {
      skipped: Array<{ path: string; reason: string }>;
    };
    const reason = (name: string): string => skipped.skipped.find((s) => s.path.endsWith(name))?.reason ?? '';
    expect(reason('big-jpeg.jpg')).toMatch(/the file is 2\.5 GiB \(a JPEG file\), over the 1 GiB a source image file may be/);
    expect(reason('big-nothing.png')).toMatch(/the file is 3\.2 GiB \(it starts with no known image signature\)/);
    // Raw mode: the field's page-size check from the header speaks first; either way nothing was decoded.
    expect(reason('wide.png')).toMatch(
      /too large \(20000x20000 = 400 megapixels; the limit is 268 megapixels\), as its header says|image 20000x20000 would store .* \(read from its header/,
    );
    for (const s of skipped.skipped) expect(s.reason).not.toMatch(/shrank|out of range|Received -/);
    if (time) {
      const kb = Number(/MAXRSS_KB=(\d+)/.exec(r.stderr)?.[1]);
      expect(kb, 'peak RSS of the build').toBeLessThan(1024 * 1024);
    }
  }, 150_000);
});

describe('an image under the pixel limit whose raw pixels cannot fit in a page', () => {
  it('a 16000x16000 PNG is OBJECT_TOO_LARGE from its header (raw mode), before any decode', async () => {
    const { DatasetWriter } = await import('../../core/writer/dataset-writer.js');
    const { RGBImageField } = await import('../../core/fields/rgb-image-field.js');
    const png = join(dir, 'p16k.png');
    writeFileSync(png, pngHeader(16000, 16000)); // its data is empty: decoding it would fail differently
    for (const numWorkers of [0, 1]) {
      const err = await new DatasetWriter(
        join(dir, `p16k-${numWorkers}.beton`),
        { image: new RGBImageField({ writeMode: 'raw' }) },
        { numWorkers },
      )
        .write([{ image: { path: png } }])
        .then(
          () => null,
          (e: Error & { code?: string }) => e,
        );
      expect(err?.code, String(err)).toBe('OBJECT_TOO_LARGE');
      expect(err?.message).toMatch(
        /image 16000x16000 would store 16000x16000 raw pixels \(768000000 bytes\), larger than the page size 8388608 \(read from its header/,
      );
    }
  }, 60_000);
});
