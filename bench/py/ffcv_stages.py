"""One-thread cost of each step FFCV's writer takes per image (bench/writer.ts --vs-ffcv).

usage: /usr/bin/python3 ffcv_stages.py ROOT COUNT MAX_RESOLUTION QUALITY

For the first COUNT images of the ImageFolder (sorted as torchvision lists them): open
(PIL reads the header), decode (convert('RGB'), what torchvision's loader does), to numpy
(RGBImageField.encode's np.asarray), resize (FFCV's own resizer: cv2 INTER_AREA) and
encode (FFCV's own encode_jpeg: cvtColor + cv2.imencode). CPU time of the process (cv2
may use helper threads), in ms per image, as one JSON line; images are read twice and
only the second pass is timed, so every file is in the page cache.
"""
import json
import os
import sys
import time

import numpy as np
from PIL import Image

from ffcv.fields.rgb_image import encode_jpeg, resizer

EXTENSIONS = ('.jpg', '.jpeg', '.png', '.ppm', '.bmp', '.pgm', '.tif', '.tiff', '.webp')


def main():
    root, count, max_res, quality = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    paths = []
    for name in sorted(e.name for e in os.scandir(root) if e.is_dir()):
        for dirpath, _, files in sorted(os.walk(os.path.join(root, name), followlinks=True)):
            paths.extend(os.path.join(dirpath, f) for f in sorted(files) if f.lower().endswith(EXTENSIONS))
    paths = paths[:count]
    clock = time.process_time
    totals = {'open': 0.0, 'decode': 0.0, 'asarray': 0.0, 'resize': 0.0, 'encode': 0.0}
    for timed in (False, True):
        for path in paths:
            t0 = clock()
            with open(path, 'rb') as f:
                image = Image.open(f)
                t1 = clock()
                image = image.convert('RGB')
            t2 = clock()
            pixels = np.asarray(image)
            t3 = clock()
            small = resizer(pixels, max_res)
            t4 = clock()
            encode_jpeg(small, quality)
            t5 = clock()
            if timed:
                for k, v in zip(totals, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4)):
                    totals[k] += v
    print(json.dumps({k: v * 1000 / len(paths) for k, v in totals.items()} | {'images': len(paths)}))


if __name__ == '__main__':
    main()
