"""FFCV's Loader timed directly, written by hand (not by our exporter): the reference the
ffcv engine's points are checked against. Job: file, batch_size, num_workers, size, seconds,
windows. Out: img/s of each window after a warm-up."""
import json
import sys
import time

from ffcv.fields.decoders import IntDecoder, RandomResizedCropRGBImageDecoder
from ffcv.loader import Loader, OrderOption
from ffcv.transforms import RandomHorizontalFlip, Squeeze, ToTensor, ToTorchImage

job = json.load(open(sys.argv[1]))
import torch

torch.set_num_threads(1)
loader = Loader(
    job["file"],
    batch_size=job["batch_size"],
    num_workers=job["num_workers"],
    order=OrderOption.RANDOM,
    os_cache=True,
    drop_last=True,
    batches_ahead=3,
    seed=0,
    pipelines={
        "image": [
            RandomResizedCropRGBImageDecoder((job["size"], job["size"])),
            RandomHorizontalFlip(),
            ToTensor(),
            ToTorchImage(),
        ],
        "label": [IntDecoder(), ToTensor(), Squeeze()],
    },
)


def batches():
    while True:
        for b in loader:
            yield b


it = batches()
for _ in range(3):
    next(it)
rates = []
for _ in range(job["windows"]):
    t0 = time.perf_counter()
    n = 0
    while True:
        n += next(it)[0].shape[0]
        t = time.perf_counter()
        if t - t0 >= job["seconds"]:
            break
    rates.append(n / (t - t0))
json.dump({"rates": rates}, open(sys.argv[2], "w"))
