"""FFCV's half of test/interop/format-roundtrip.test.ts, in one process (FFCV's import and
numba cost seconds): writes every dataset of job['write'] with FFCV's DatasetWriter, reads
every file of job['read'] (ours and its own) with FFCV's reader, and loads every file of
job['load'] through FFCV's Loader; all as canonical dumps.

Job values (see format-gen.ts): int as decimal string, float as f64 bits (hex), bytes and
arrays as base64, JSON as the text to json.loads, images as [width, height, base64 RGB].
"""
import base64
import hashlib
import json
import multiprocessing
import os
import struct
import sys
import threading
import time

import numpy as np
import torch
from ffcv.fields import (BytesField, FloatField, IntField, JSONField, NDArrayField,
                         RGBImageField, TorchTensorField)
from ffcv.writer import DatasetWriter

from canonical import FfcvView, loader_dump
from common import done, job

# FFCV's writer waits forever when a worker process dies (e.g. OpenCV asserting on an image
# resized to zero pixels), and so does its Loader when a pipeline fails in its thread:
# give each a deadline and say which file hung.
DEADLINE_S = 120

TORCH_DTYPES = {
    '|b1': torch.bool, '|u1': torch.uint8, '|i1': torch.int8, '<i2': torch.int16, '<i4': torch.int32,
    '<i8': torch.int64, '<f2': torch.float16, '<f4': torch.float32, '<f8': torch.float64,
    '<c8': torch.complex64, '<c16': torch.complex128,
}


def make_field(spec):
    t = spec['type']
    if t == 'int':
        return IntField()
    if t == 'float':
        return FloatField()
    if t == 'bytes':
        return BytesField()
    if t == 'json':
        return JSONField()
    if t == 'ndarray':
        return NDArrayField(np.dtype(spec['dtype']), tuple(spec['shape']))
    if t == 'torch':
        return TorchTensorField(TORCH_DTYPES[spec['dtype']], tuple(spec['shape']))
    if t == 'rgb':
        return RGBImageField(write_mode=spec['write_mode'], max_resolution=spec['max_resolution'],
                             smart_threshold=spec['smart_threshold'], jpeg_quality=spec['jpeg_quality'],
                             compress_probability=spec['compress_probability'])
    raise ValueError(f'unknown field type {t}')


def make_value(spec, v):
    t = spec['type']
    if t == 'int':
        return int(v)
    if t == 'float':
        return struct.unpack('>d', bytes.fromhex(v))[0]
    if t == 'bytes':
        return np.frombuffer(base64.b64decode(v), dtype='<u1').copy()
    if t == 'json':
        return json.loads(v)
    if t in ('ndarray', 'torch'):
        a = np.frombuffer(base64.b64decode(v), dtype=np.dtype(spec['dtype'])).reshape(spec['shape']).copy()
        return torch.from_numpy(a) if t == 'torch' else a
    if t == 'rgb':
        w, h, b = v
        return np.frombuffer(base64.b64decode(b), dtype='<u1').reshape(h, w, 3).copy()
    raise ValueError(f'unknown field type {t}')


class Dataset:
    """Builds values lazily in FFCV's worker process, as a real indexed dataset would."""

    def __init__(self, specs, samples):
        self.specs = specs
        self.samples = samples

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, i):
        return tuple(make_value(s, v) for s, v in zip(self.specs, self.samples[i]))


def hung(what, path):
    sys.stderr.write(f'\nFFCV {what} did not finish {path} within {DEADLINE_S}s '
                     '(a worker probably died; its traceback is above)\n')
    sys.stderr.flush()
    for p in multiprocessing.active_children():
        p.kill()
    os._exit(3)


class Deadline:
    def __init__(self, what, path):
        self.timer = threading.Timer(DEADLINE_S, hung, [what, path])
        self.timer.daemon = True

    def __enter__(self):
        self.timer.start()

    def __exit__(self, *exc):
        self.timer.cancel()


def write(d):
    specs = d['fields']
    fields = {s['name']: make_field(s) for s in specs}
    # 'proportion' draws from numpy's global RNG in the (forked) worker.
    np.random.seed(d['np_seed'])
    with Deadline('writer', d['path']):
        t0 = time.time()
        DatasetWriter(d['path'], fields, page_size=d['page_size'], num_workers=1).from_indexed_dataset(
            Dataset(specs, d['samples']))
        seconds = time.time() - t0
    with open(d['path'], 'rb') as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    return {'sha256': digest, 'size': os.path.getsize(d['path']), 'seconds': seconds}


def main():
    j = job()
    t0 = time.time()
    written = {d['path']: write(d) for d in j.get('write', [])}
    t1 = time.time()
    read = {}
    for p in j.get('read', []):
        try:
            read[p] = FfcvView(p).dump()
        except Exception as e:  # reported per file, so one bad file does not hide the others
            read[p] = {'error': f'{type(e).__name__}: {e}'}
    t2 = time.time()
    loaded = {}
    for spec in j.get('load', []):
        try:
            with Deadline('Loader', spec['path']):
                loaded[spec['path']] = loader_dump(spec['path'], spec['os_cache'], spec['batch_size'])
        except Exception as e:
            loaded[spec['path']] = {'error': f'{type(e).__name__}: {e}'}
    done({'written': written, 'read': read, 'loaded': loaded,
          'seconds': {'write': t1 - t0, 'read': t2 - t1, 'load': time.time() - t2}})


if __name__ == '__main__':
    main()
