"""Runs Python that `beton export` wrote, under the real FFCV, and dumps its batches.

Job: {"runs": [{"name", "module": path of the generated .py, "out": folder}]}. Each module
runs as a script (its own `for batch in loader` epoch), then one more epoch is dumped from
its `loader`: OUT/<output>.<batch>.bin, the batch's bytes in C order. BytesDecoder rows
are zeroed past each sample's size (FFCV leaves the previous contents of its buffer
there; Beton Studio's loader zeroes them). One process for all runs: numba compiles each
pipeline once per process, and torch/FFCV import only once.
"""
import os
import runpy
import time

import numpy as np
import torch
from ffcv.fields import BytesField
from ffcv.fields.decoders import BytesDecoder

from common import job, done


def as_numpy(x):
    if isinstance(x, torch.Tensor):
        return x.detach().cpu().contiguous().numpy()
    return np.ascontiguousarray(x)


def run(spec):
    t0 = time.time()
    # As a user runs it: python3 generated.py (one epoch over every batch).
    env = runpy.run_path(spec["module"], run_name="__main__")
    t1 = time.time()
    loader = env["loader"]
    names = list(loader.pipeline_specs.keys())
    # The epoch about to run visits samples in this order (FFCV's traversal order, by epoch).
    order = loader.traversal_order.sample_order(loader.next_epoch)
    sizes = {}
    for name in names:
        spec_ = loader.pipeline_specs[name]
        if isinstance(loader.reader.handlers.get(name), BytesField) and isinstance(spec_.decoder, BytesDecoder):
            sizes[name] = loader.reader.metadata["f%d" % loader.field_name_to_f_ix[name]]["size"]
    shapes = {n: [] for n in names}
    dtypes = {}
    os.makedirs(spec["out"], exist_ok=True)
    batches = 0
    for b, batch in enumerate(loader):
        for name, x in zip(names, batch):
            a = as_numpy(x)
            if name in sizes:
                a = a.copy()
                ids = order[b * loader.batch_size:b * loader.batch_size + a.shape[0]]
                for r, sample in enumerate(ids):
                    a[r, int(sizes[name][sample]):] = 0
            shapes[name].append(list(a.shape))
            dtypes[name] = str(a.dtype)
            a.tofile(os.path.join(spec["out"], "%s.%d.bin" % (name, b)))
        batches += 1
    return {
        "outputs": names,
        "batches": batches,
        "shapes": shapes,
        "dtypes": dtypes,
        "script_s": round(t1 - t0, 2),
        "dump_s": round(time.time() - t1, 2),
    }


done({spec["name"]: run(spec) for spec in job()["runs"]})
