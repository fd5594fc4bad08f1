"""FFCV's Loader on a tabular .beton: open time, first batch, per-epoch seconds (one JSON line).
usage: ffcv_tabular.py FILE EPOCHS BATCH WORKERS"""
import json
import sys
import time

path, epochs, batch, workers = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
from ffcv.loader import Loader, OrderOption  # noqa: E402 (import time is not the loader's)

t0 = time.perf_counter()
loader = Loader(path, batch_size=batch, num_workers=workers, order=OrderOption.RANDOM, seed=0)
open_s = time.perf_counter() - t0
first = None
per_epoch = []
for _ in range(epochs):
    te = time.perf_counter()
    for _b in loader:
        if first is None:
            first = time.perf_counter() - t0
    per_epoch.append(time.perf_counter() - te)
print(json.dumps({'open_ms': open_s * 1000, 'first_batch_ms': first * 1000, 'epochs_s': per_epoch}))
