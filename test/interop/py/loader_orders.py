"""FFCV's side of test/interop/loader-orders.test.ts: the sample ids FFCV's own Loader
yields, batch by batch and epoch by epoch, for SEQUENTIAL and RANDOM orders, with and
without `distributed` (each rank in turn), several seeds, batch sizes, drop_last both ways
and `indices` subsets; plus whole epoch orders of large index sets straight from FFCV's
traversal-order classes.

Distributed: FFCV's orders build torch's DistributedSampler without num_replicas/rank, so
it asks torch.distributed for them (an initialised process group). One process cannot be
every rank of a real group, so get_world_size/get_rank are answered here instead; the
sampler, FFCV's orders and FFCV's Loader are the real ones.
"""
import time

import numpy as np
import torch.distributed as dist

from common import done, job
from ffcv.fields import IntField
from ffcv.fields.decoders import IntDecoder
from ffcv.loader import Loader, OrderOption
from ffcv.traversal_order import Random, Sequential
from ffcv.writer import DatasetWriter

ORDERS = {'sequential': OrderOption.SEQUENTIAL, 'random': OrderOption.RANDOM}
CLASSES = {'sequential': Sequential, 'random': Random}
_group = {'rank': 0, 'world_size': 1}
dist.is_available = lambda: True
dist.get_world_size = lambda *a, **k: _group['world_size']
dist.get_rank = lambda *a, **k: _group['rank']


def as_group(d):
    _group['rank'], _group['world_size'] = (d['rank'], d['world_size']) if d else (0, 1)


def loader_batches(c):
    as_group(c.get('distributed'))
    kwargs = {} if c.get('seed') is None else {'seed': c['seed']}
    loader = Loader(c['path'], batch_size=c['batch_size'], num_workers=1, order=ORDERS[c['order']],
                    distributed=c.get('distributed') is not None, indices=c.get('indices'),
                    drop_last=c['drop_last'], pipelines={'id': [IntDecoder()]}, **kwargs)
    epochs = []
    for _ in range(c['epochs']):
        epochs.append([b[0][:, 0].tolist() for b in loader])
    return {'length': len(loader), 'seed': int(loader.seed), 'epochs': epochs}


class MinimalLoader:
    """What FFCV's Sequential/Random read from a loader: indices, seed, distributed."""

    def __init__(self, indices, seed, distributed):
        self.indices = indices
        self.seed = seed
        self.distributed = distributed


def class_orders(c):
    as_group(c.get('distributed'))
    indices = np.arange(c['n'], dtype='uint64')
    order = CLASSES[c['order']](MinimalLoader(indices, c['seed'], c.get('distributed') is not None))
    return [np.asarray(order.sample_order(e)).astype(np.int64).tolist() for e in c['epochs']]


j = job()
t = time.time()
DatasetWriter(j['path'], {'id': IntField()}, num_workers=1).from_indexed_dataset([(i,) for i in range(j['n'])])
out = {'loaders': [loader_batches({**c, 'path': j['path']}) for c in j['loaders']]}
out['loader_seconds'] = time.time() - t
t = time.time()
out['classes'] = [class_orders(c) for c in j['classes']]
out['class_seconds'] = time.time() - t
done(out)
