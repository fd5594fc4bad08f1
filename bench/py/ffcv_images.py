"""FFCV's Loader on an image .beton, timed per epoch (bench/ratios.ts, line "images").

usage: /usr/bin/python3 ffcv_images.py FILE EPOCHS BATCH WORKERS SIZE

Pipeline as our side (bench/lib/loader-limit.ts, loaderPipelines): RandomResizedCrop(SIZE)
(scale 0.08-1, ratio 3/4-4/3) + RandomHorizontalFlip + ToTensor + ToTorchImage (uint8 CHW),
labels IntDecoder; order QUASI_RANDOM (FFCV refuses it with os_cache), drop_last, seed 0,
batches_ahead 3 (both sides' default). Prints one JSON line: {"open_ms", "first_batch_ms",
"epochs_s": [...], "images": per epoch}. The first epoch includes numba's compile.
"""
import json
import sys
import time

path, epochs, batch, workers, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
import torch  # noqa: E402 (import time is not the loader's)
from ffcv.fields.decoders import IntDecoder, RandomResizedCropRGBImageDecoder  # noqa: E402
from ffcv.loader import Loader, OrderOption  # noqa: E402
from ffcv.transforms import RandomHorizontalFlip, Squeeze, ToTensor, ToTorchImage  # noqa: E402

torch.set_num_threads(1)
t0 = time.perf_counter()
loader = Loader(
    path,
    batch_size=batch,
    num_workers=workers,
    order=OrderOption.QUASI_RANDOM,
    os_cache=False,
    drop_last=True,
    batches_ahead=3,
    seed=0,
    pipelines={
        'image': [RandomResizedCropRGBImageDecoder((size, size), (0.08, 1.0), (3 / 4, 4 / 3)), RandomHorizontalFlip(),
                  ToTensor(), ToTorchImage()],
        'label': [IntDecoder(), ToTensor(), Squeeze()],
    },
)
open_s = time.perf_counter() - t0
first = None
per_epoch = []
images = 0
for e in range(epochs):
    te = time.perf_counter()
    n = 0
    for b in loader:
        n += b[0].shape[0]
        if first is None:
            first = time.perf_counter() - t0
    per_epoch.append(time.perf_counter() - te)
    images = n
print(json.dumps({'open_ms': open_s * 1000, 'first_batch_ms': first * 1000, 'epochs_s': per_epoch, 'images': images}))
