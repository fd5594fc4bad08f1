# A real CUDA training step fed by a DataLoader, wrapped in beton_probe.watch.
# MODE=input: the loader is slow (each batch takes ~DATA_MS of CPU-side work), the GPU step is short.
# MODE=compute: the loader is instant, the GPU step is long (a stack of large matmuls).
import os, time, sys
import torch
from torch.utils.data import DataLoader, IterableDataset
from beton_probe import watch

MODE = os.environ.get("MODE", "input")
STEPS = int(os.environ.get("STEPS", "60"))
BATCH = 256 if MODE.startswith("compute") else 64
DATA_MS = 30 if MODE == "input" else 0
dev = torch.device("cuda")
# MODE=compute-cached: the same batch every step (no loading cost at all).
CACHED = (torch.randint(0, 255, (BATCH, 3, 64, 64), dtype=torch.uint8), torch.randint(0, 10, (BATCH,))) if MODE.endswith('cached') else None

class Synthetic(IterableDataset):
    def __iter__(self):
        for _ in range(STEPS):
            if DATA_MS:
                time.sleep(DATA_MS / 1000)  # stands for decode + augment on the CPU
            yield (CACHED if CACHED is not None else (torch.randint(0, 255, (BATCH, 3, 64, 64), dtype=torch.uint8), torch.randint(0, 10, (BATCH,))))

loader = DataLoader(Synthetic(), batch_size=None, num_workers=0, pin_memory=True)
width = 4096 if MODE.startswith("compute") else 256
model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(3 * 64 * 64, width), torch.nn.ReLU(),
                            *[m for _ in range(6 if MODE.startswith("compute") else 1) for m in (torch.nn.Linear(width, width), torch.nn.ReLU())],
                            torch.nn.Linear(width, 10)).to(dev)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
loss_fn = torch.nn.CrossEntropyLoss()
reps = 20 if MODE.startswith("compute") else 1
for images, labels in watch(loader, batch_size=BATCH):
    images = images.to(dev, non_blocking=True).float().div_(255)
    labels = labels.to(dev, non_blocking=True)
    for _ in range(reps):
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(images), labels)
        loss.backward()
        opt.step()
print("done", torch.cuda.get_device_name(0), loss.item(), file=sys.stderr)
