"""torchvision's DataLoader timed directly, written by hand (not by the profiler's driver): the
reference the torch engine's points are checked against (issue 33 item 3). Job: source,
batch_size, num_workers, size, seconds, windows. The same pipeline the engine promises:
ImageFolder, RandomResizedCrop(size, scale=(0.08, 1), ratio=(3/4, 4/3)), a horizontal flip,
uint8 CHW tensors, shuffled, drop_last. Out: img/s of each window after a warm-up."""
import json
import sys
import time

import torch
from torchvision import datasets, transforms as T

job = json.load(open(sys.argv[1]))
torch.set_num_threads(1)
tf = T.Compose(
    [
        T.RandomResizedCrop(job["size"], scale=(0.08, 1.0), ratio=(3 / 4, 4 / 3)),
        T.RandomHorizontalFlip(),
        T.PILToTensor(),
    ]
)
loader = torch.utils.data.DataLoader(
    datasets.ImageFolder(job["source"], transform=tf),
    batch_size=job["batch_size"],
    shuffle=True,
    num_workers=job["num_workers"],
    drop_last=True,
    persistent_workers=True,
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
