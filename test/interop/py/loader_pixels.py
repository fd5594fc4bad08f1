"""FFCV's side of test/interop/loader-pixels.test.ts, in one process (every FFCV Loader
pipeline costs a numba compile, so everything is batched here):

  write   .beton files written by FFCV's own DatasetWriter from the test's JPEG files
          (decoded with PIL, as FFCV's ImageNet example does through torchvision);
  resize  libffcv.resize_crop (FFCV's cv::resize INTER_AREA call) on raw sources and crops;
  decode  libffcv.imdecode (tjDecompress2, TJFLAG_FASTDCT) of whole JPEGs, then resize_crop
          of crops: exactly what FFCV's crop decoders do per sample;
  runs    FFCV's Loader on .beton files, every batch of every output dumped to a binary file
          (the logical C-order bytes of each batch: torch tensors made contiguous, so a
          ToTorchImage channels-last view is dumped as (C, H, W)).

Pipelines come as data, the same description the TypeScript test maps to our steps.
"""
import os
import time

import numpy as np
import torch
from PIL import Image

from common import done, job
from ffcv.fields import IntField, RGBImageField
from ffcv.fields.decoders import (CenterCropRGBImageDecoder, IntDecoder, RandomResizedCropRGBImageDecoder,
                                  SimpleRGBImageDecoder)
from ffcv.libffcv import imdecode, resize_crop
from ffcv.loader import Loader, OrderOption
from ffcv.pipeline import PipelineSpec
from ffcv.transforms import Convert, NormalizeImage, RandomHorizontalFlip, ToTensor, ToTorchImage
from ffcv.writer import DatasetWriter

NP_FLOATS = {'float16': np.float16, 'float32': np.float32, 'float64': np.float64}
TORCH_TYPES = {'uint8': torch.uint8, 'int8': torch.int8, 'int16': torch.int16, 'int32': torch.int32,
               'float16': torch.float16, 'float32': torch.float32, 'float64': torch.float64}
ORDERS = {'sequential': OrderOption.SEQUENTIAL, 'random': OrderOption.RANDOM}


def write(w):
    images = [np.array(Image.open(p).convert('RGB')) for p in w['images']]
    rows = [(img, int(label), i) for i, (img, label) in enumerate(zip(images, w['labels']))]
    field = RGBImageField(write_mode=w['mode'], max_resolution=w.get('max_resolution'),
                          smart_threshold=w.get('smart_threshold'), jpeg_quality=w.get('jpeg_quality', 90),
                          compress_probability=w.get('compress_probability', 0.5))
    np.random.seed(w.get('seed', 0))  # 'proportion' draws from numpy's global generator
    DatasetWriter(w['path'], {'image': field, 'label': IntField(), 'id': IntField()},
                  num_workers=1).from_indexed_dataset(rows)


def decoder(d):
    k = d['kind']
    if k == 'simple':
        return SimpleRGBImageDecoder()
    if k == 'center_crop':
        return CenterCropRGBImageDecoder(tuple(d['size']), d['ratio'])
    if k == 'rrc':
        return RandomResizedCropRGBImageDecoder(tuple(d['size']), tuple(d['scale']), tuple(d['ratio']))
    if k == 'int':
        return IntDecoder()
    raise ValueError(k)


def op(o):
    k = o['op']
    if k == 'flip':
        return RandomHorizontalFlip(o['p'])
    if k == 'normalize':
        return NormalizeImage(np.array(o['mean'], dtype=np.float64), np.array(o['std'], dtype=np.float64),
                              NP_FLOATS[o['dtype']])
    if k == 'to_tensor':
        return ToTensor()
    if k == 'to_torch_image':
        return ToTorchImage(channels_last=o.get('channels_last', True))
    if k == 'convert':
        return Convert(TORCH_TYPES[o['dtype']])
    raise ValueError(k)


def as_array(x):
    if isinstance(x, torch.Tensor):
        return x.contiguous().numpy()
    return np.ascontiguousarray(x)


def run(r):
    pipelines = {name: None for name in r.get('disable', [])}
    for o in r['outputs']:
        pipelines[o['name']] = PipelineSpec(o['source'], decoder=decoder(o['decoder']),
                                            transforms=[op(x) for x in o.get('ops', [])])
    t0 = time.time()
    loader = Loader(r['path'], batch_size=r['batch_size'], num_workers=1, order=ORDERS[r['order']],
                    seed=r.get('seed'), indices=r.get('indices'), drop_last=r['drop_last'],
                    pipelines=pipelines)
    names = list(loader.pipeline_specs.keys())
    files = {n: open(os.path.join(r['out_dir'], f"{r['name']}.{n}.bin"), 'wb') for n in names}
    meta = {}
    epochs = []
    for _ in range(r.get('epochs', 1)):
        sizes = []
        for batch in loader:
            for n, x in zip(names, batch):
                a = as_array(x)
                meta[n] = {'dtype': a.dtype.str, 'shape': list(a.shape[1:])}
                files[n].write(a.tobytes())
            sizes.append(int(as_array(batch[0]).shape[0]))
        epochs.append(sizes)
    for f in files.values():
        f.close()
    return {'outputs': {n: {**meta[n], 'file': files[n].name} for n in names}, 'epochs': epochs,
            'seconds': time.time() - t0}


def resize_cases(job):
    """libffcv.resize_crop on raw sources: cases = {src offset, h, w, crop [r0, r1, c0, c1], out [h, w]}."""
    src = np.fromfile(job['source_file'], dtype=np.uint8)
    with open(job['out_file'], 'wb') as out:
        for c in job['cases']:
            h, w = c['h'], c['w']
            img = src[c['offset']:c['offset'] + h * w * 3].reshape(h, w, 3)
            dst = np.zeros((c['out'][0], c['out'][1], 3), dtype=np.uint8)
            r0, r1, c0, c1 = c['crop']
            resize_crop(img, r0, r1, c0, c1, dst)
            out.write(dst.tobytes())


def decode_cases(job):
    """FFCV's crop decoders per sample: imdecode the whole JPEG (fast DCT), resize_crop the crop."""
    data = np.fromfile(job['jpeg_file'], dtype=np.uint8)
    with open(job['out_file'], 'wb') as out:
        for j in job['jpegs']:
            h, w = j['h'], j['w']
            jpeg = data[j['offset']:j['offset'] + j['size']]
            full = np.zeros(h * w * 3, dtype=np.uint8)
            rc = imdecode(jpeg, full, h, w, h, w, 0, 0, 1, 1, False, False)
            if rc != 0:
                raise RuntimeError(f'imdecode failed ({rc}) for a {w}x{h} JPEG at {j["offset"]}')
            full = full.reshape(h, w, 3)
            out.write(full.tobytes())
            for c in j['crops']:
                dst = np.zeros((c['out'][0], c['out'][1], 3), dtype=np.uint8)
                r0, r1, c0, c1 = c['crop']
                resize_crop(full, r0, r1, c0, c1, dst)
                out.write(dst.tobytes())


j = job()
timings = {}
t = time.time()
for w in j.get('write', []):
    write(w)
timings['write'] = time.time() - t
t = time.time()
if 'resize' in j:
    resize_cases(j['resize'])
if 'decode' in j:
    decode_cases(j['decode'])
timings['units'] = time.time() - t
runs = {r['name']: run(r) for r in j.get('runs', [])}
done({'runs': runs, 'timings': timings, 'versions': {'torch': torch.__version__, 'numpy': np.__version__}})
