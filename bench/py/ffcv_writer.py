"""FFCV's own DatasetWriter over an ImageFolder-like tree, timed (bench/writer.ts --vs-ffcv).

usage: /usr/bin/python3 ffcv_writer.py ROOT OUT.beton NUM_WORKERS MAX_RESOLUTION QUALITY PAGE_SIZE

Samples are (PIL image converted to RGB, class index), listed as torchvision's ImageFolder
does (sorted class folders, sorted files, its image extensions), so sample i is the same
image our ImageFolderSource yields at i. Prints one JSON line: {"seconds": wall time of
from_indexed_dataset, "samples": N, "cpuSeconds": CPU of this process and its workers
during it, "processCpuSeconds": the same since the interpreter started, "importSeconds": ...}. Run it from outside any source tree: a folder named like
a Python package in the working directory would shadow the installed ffcv.
"""
import time

T_START = time.perf_counter()

import json
import multiprocessing
import os
import resource
import sys

from PIL import Image

from ffcv.fields import IntField, RGBImageField
from ffcv.writer import DatasetWriter

# torchvision.datasets.folder.IMG_EXTENSIONS
EXTENSIONS = ('.jpg', '.jpeg', '.png', '.ppm', '.bmp', '.pgm', '.tif', '.tiff', '.webp')


class ImageFolderLike:
    def __init__(self, root):
        classes = sorted(e.name for e in os.scandir(root) if e.is_dir())
        self.samples = []
        for label, name in enumerate(classes):
            folder = os.path.join(root, name)
            for dirpath, _, files in sorted(os.walk(folder, followlinks=True)):
                for f in sorted(files):
                    if f.lower().endswith(EXTENSIONS):
                        self.samples.append((os.path.join(dirpath, f), label))

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, i):
        path, label = self.samples[i]
        # torchvision's pil_loader
        with open(path, 'rb') as f:
            image = Image.open(f)
            return image.convert('RGB'), label


def main():
    root, out, workers, max_res, quality, page_size = sys.argv[1:7]
    dataset = ImageFolderLike(root)
    writer = DatasetWriter(out, {
        'image': RGBImageField(write_mode='jpg', max_resolution=int(max_res), jpeg_quality=int(quality)),
        'label': IntField(),
    }, num_workers=int(workers), page_size=int(page_size))
    cpu0 = cpu_seconds()
    t0 = time.perf_counter()
    writer.from_indexed_dataset(dataset)
    seconds = time.perf_counter() - t0
    # Reap the finished workers (FFCV does not join them), so their CPU time is counted.
    for p in multiprocessing.active_children():
        p.join()
    total = cpu_seconds()
    print(json.dumps({'seconds': seconds, 'samples': len(dataset), 'cpuSeconds': total - cpu0,
                      'processCpuSeconds': total, 'importSeconds': t0 - T_START}))


def cpu_seconds():
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


if __name__ == '__main__':
    main()
