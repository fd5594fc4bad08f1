"""A tiny training script for `beton profile --exec` training-command sweeps (issue 27).

    beton profile --exec "python3 examples/train-workers.py --workers {workers} --batch-size {batch_size}" \
        --workers 1,2,4,8 --batch-sizes 64 --seconds 20

A torch DataLoader with --workers processes feeds a small model; each sample costs about
--sample-ms of CPU in the worker (standing for JPEG decode and augmentation), so few workers
starve the step and enough workers keep it busy. The loop is wrapped in beton_probe.watch(),
so beton reads each step's wait for data. Runs on CUDA when torch sees a GPU, else on the CPU.
beton puts python/ on PYTHONPATH under --exec; run elsewhere, add it yourself.
"""
import argparse
import sys
import time

import torch
from torch.utils.data import DataLoader, Dataset

from beton_probe import watch

p = argparse.ArgumentParser()
p.add_argument("--workers", type=int, default=2)
p.add_argument("--batch-size", type=int, default=64)
p.add_argument("--steps", type=int, default=200)
p.add_argument("--sample-ms", type=float, default=1.0, help="CPU per sample in a worker (decode stand-in)")
p.add_argument("--side", type=int, default=64)
p.add_argument("--width", type=int, default=0, help="hidden width (0: 1024 on CUDA, 128 on CPU)")
p.add_argument("--inner", type=int, default=1, help="forward/backward passes per batch (a heavier step)")
args = p.parse_args()

dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Synthetic(Dataset):
    """Images made with real CPU work per sample (a busy loop of --sample-ms), not a sleep."""

    def __len__(self):
        return args.batch_size * args.steps

    def __getitem__(self, i):
        end = time.perf_counter() + args.sample_ms / 1000
        x = 0
        while time.perf_counter() < end:
            x += 1
        g = torch.Generator().manual_seed(i)
        return torch.randint(0, 255, (3, args.side, args.side), dtype=torch.uint8, generator=g), i % 10


loader = DataLoader(
    Synthetic(),
    batch_size=args.batch_size,
    num_workers=args.workers,
    shuffle=True,
    drop_last=True,
    pin_memory=dev.type == "cuda",
    persistent_workers=args.workers > 0,
)
width = args.width or (1024 if dev.type == "cuda" else 128)
model = torch.nn.Sequential(
    torch.nn.Flatten(),
    torch.nn.Linear(3 * args.side * args.side, width),
    torch.nn.ReLU(),
    torch.nn.Linear(width, width),
    torch.nn.ReLU(),
    torch.nn.Linear(width, 10),
).to(dev)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
loss_fn = torch.nn.CrossEntropyLoss()
torch.set_num_threads(1)
for images, labels in watch(loader, batch_size=args.batch_size):
    images = images.to(dev, non_blocking=True).float().div_(255)
    labels = labels.to(dev, non_blocking=True)
    for _ in range(args.inner):
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(images), labels)
        loss.backward()
        opt.step()
print("done on", dev, "loss", float(loss), file=sys.stderr)
