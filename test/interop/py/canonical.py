"""FFCV's view of a .beton file in the canonical sample encoding of the golden manifests
(test/fixtures/ffcv/README.md), so it can be compared with our `canonicalSample` as JSON.

Everything is read the way FFCV's own Loader reads it: fields and metadata from
ffcv.reader.Reader, heap objects through FFCV's pointer -> size lookup (the argsort +
searchsorted of its MemoryManager, here run in plain Python instead of numba), JPEGs through
ffcv.libffcv.imdecode with the arguments SimpleRGBImageDecoder passes.
"""
import json
import math
import os

import numpy as np
from ffcv.fields import BytesField, FloatField, IntField, JSONField, NDArrayField, RGBImageField
from ffcv.libffcv import imdecode
from ffcv.memory_managers.os_cache import OSCacheManager
from ffcv.reader import Reader

from common import f64_bits, sha256

SAFE = 2 ** 53


def json_safe(v):
    """JSON-printable for JS: NaN/Infinity as strings (as our canonical dump does)."""
    if isinstance(v, float) and not math.isfinite(v):
        return 'NaN' if math.isnan(v) else ('Infinity' if v > 0 else '-Infinity')
    if isinstance(v, list):
        return [json_safe(x) for x in v]
    if isinstance(v, dict):
        return {k: json_safe(x) for k, x in v.items()}
    return v


def array_values(a):
    """Nested lists in C order: NaN/+-Infinity as strings, 64-bit ints beyond 2^53 as
    decimal strings, complex as [re, im] (the encoding of core/reader/canonical.ts)."""
    def one(v):
        if isinstance(v, bool):
            return v
        if isinstance(v, int):
            return v if -SAFE <= v <= SAFE else str(v)
        if isinstance(v, complex):
            return [one(v.real), one(v.imag)]
        return json_safe(float(v))
    def walk(v):
        return [walk(x) for x in v] if isinstance(v, list) else one(v)
    return walk(a.tolist())


class FfcvView:
    """One file as FFCV's reader sees it."""

    def __init__(self, path):
        self.path = path
        self.reader = Reader(path)
        # FFCV builds its pointer -> size table in MemoryManager.__init__; reuse it as is.
        manager = OSCacheManager(self.reader)
        self.ptrs = manager.ptrs
        self.sizes = manager.sizes
        table = self.reader.alloc_table
        self.zero_ptrs = set(int(p) for p in table['ptr'][table['size'] == 0])
        self.max_size = {}
        for p, s in zip(table['ptr'].tolist(), table['size'].tolist()):
            self.max_size[p] = max(s, self.max_size.get(p, 0))
        self.mm = np.memmap(path, 'uint8', mode='r') if os.path.getsize(path) else np.zeros(0, 'uint8')
        # Objects whose size FFCV's lookup gets wrong: {sample, field, ffcv_size, size, shared_with_empty}.
        self.lookup_mismatches = []
        self.heap_objects = 0

    def ffcv_size(self, ptr):
        """What OSCacheManager's compiled `read` computes: sizes[searchsorted(ptrs, ptr)]."""
        i = int(np.searchsorted(self.ptrs, np.uint64(ptr)))
        return int(self.sizes[i]) if i < len(self.sizes) else None

    def heap(self, sample, field, ptr, size):
        """The object's bytes [ptr, ptr+size); records whether FFCV's lookup agrees on size."""
        self.heap_objects += 1
        got = self.ffcv_size(ptr)
        if got != size:
            self.lookup_mismatches.append({'sample': sample, 'field': field, 'ffcv_size': got, 'size': size,
                                           'shared_with_empty': ptr in self.zero_ptrs})
        return np.ascontiguousarray(self.mm[ptr:ptr + size])

    def header(self):
        r = self.reader
        fields = []
        for name, desc in zip(r.field_names, r.field_descriptors):
            h = r.handlers[name]
            f = {'name': name, 'type_id': int(desc['type_id']), 'handler': type(h).__name__}
            if isinstance(h, NDArrayField):
                f['dtype'] = h.dtype.str
                f['shape'] = [int(d) for d in h.shape]
            fields.append(f)
        return {'num_samples': int(r.num_samples), 'page_size': int(r.page_size),
                'alloc_table_ptr': int(r.header['alloc_table_ptr']), 'alloc_entries': int(len(r.alloc_table)),
                'fields': fields}

    def sample(self, i):
        r = self.reader
        out = {}
        for f, name in enumerate(r.field_names):
            h = r.handlers[name]
            m = r.metadata[i][f]
            t = type(h)
            # FFCV rebuilds a JSONField (type 5) as a plain BytesField (from_binary is
            # inherited); JSON is the bytes up to the first NUL, as JSONField.unpack reads them.
            if int(r.field_descriptors[f]['type_id']) == 5:
                t = JSONField
            if t is IntField:
                out[name] = str(int(m))
            elif t is FloatField:
                out[name] = {'f64_bits': f64_bits(m), 'repr': repr(float(m))}
            elif t is JSONField:
                stored = self.heap(i, name, int(m['ptr']), int(m['size']))
                raw = stored.tobytes()
                text = raw.split(b'\0', 1)[0].decode('utf8')  # JSONField.unpack's cut at the first NUL
                out[name] = {'value': json_safe(json.loads(text)), 'size': len(raw), 'sha256': sha256(raw)}
            elif t is BytesField:
                data = self.heap(i, name, int(m['ptr']), int(m['size'])).tobytes()
                out[name] = {'size': len(data), 'sha256': sha256(data), 'head_hex': data[:32].hex()}
            elif isinstance(h, NDArrayField):  # TorchTensorField reads back as NDArrayField
                data = self.heap(i, name, int(m), int(h.element_size))
                a = np.frombuffer(data.tobytes(), dtype=h.dtype).reshape(h.shape)
                out[name] = {'dtype': h.dtype.str, 'shape': [int(d) for d in h.shape],
                             'sha256': sha256(data.tobytes()), 'values': array_values(a)}
            elif t is RGBImageField:
                out[name] = self.image(i, name, m)
            else:
                raise TypeError(f'{self.path}: field {name} has unexpected handler {t.__name__}')
        return out

    def image(self, i, name, m):
        mode, width, height, ptr = int(m['mode']), int(m['width']), int(m['height']), int(m['data_ptr'])
        if mode == 1:
            stored = self.heap(i, name, ptr, width * height * 3)
            pixels = stored
        else:
            # Only the allocation table knows a JPEG's length; where a zero-size object shares
            # the pointer (FFCV's lookup bug), take the real entry so the pixels can be compared.
            size = self.max_size.get(ptr)
            if size is None:
                raise ValueError(f'{self.path}: sample {i} field {name}: no allocation at {ptr}')
            stored = self.heap(i, name, ptr, size)
            pixels = np.zeros((height, width, 3), dtype='<u1')
            imdecode(stored, pixels, height, width, height, width, 0, 0, 1, 1, False, False)
        return {'mode': 'jpg' if mode == 0 else 'raw', 'width': width, 'height': height,
                'sha256': sha256(pixels.tobytes()), 'stored_size': int(stored.size),
                'stored_sha256': sha256(stored.tobytes())}

    def dump(self):
        samples = [self.sample(i) for i in range(int(self.reader.num_samples))]
        return {'header': self.header(), 'samples': samples, 'heap_objects': self.heap_objects,
                'lookup_mismatches': self.lookup_mismatches}


def loader_dump(path, os_cache, batch_size):
    """The samples as FFCV's Loader delivers them (its default decoder per field, sequential
    order, every sample), in the canonical encoding where the Loader's output allows: byte
    rows have no length, so Bytes/JSON are cut at the metadata size; images give pixels only.
    """
    # Imported here: the Loader pulls in torch and numba pipelines the reader checks do not need.
    from ffcv.fields.decoders import (BytesDecoder, FloatDecoder, IntDecoder, NDArrayDecoder,
                                      SimpleRGBImageDecoder)
    from ffcv.loader import Loader, OrderOption

    r = Reader(path)
    decoders = {IntField: IntDecoder, FloatField: FloatDecoder, BytesField: BytesDecoder,
                NDArrayField: NDArrayDecoder, RGBImageField: SimpleRGBImageDecoder}
    types = [int(d['type_id']) for d in r.field_descriptors]
    pipelines = {name: [decoders[type(r.handlers[name])]()] for name in r.field_names}
    loader = Loader(path, batch_size=batch_size, num_workers=1, os_cache=os_cache,
                    order=OrderOption.SEQUENTIAL, drop_last=False, pipelines=pipelines)
    samples = []
    for batch in loader:
        for k in range(len(batch[0])):
            i = len(samples)
            out = {}
            for f, name in enumerate(r.field_names):
                v = batch[f][k]
                m = r.metadata[i][f]
                h = r.handlers[name]
                if types[f] == 1:
                    out[name] = str(int(v[0]))
                elif types[f] == 0:
                    out[name] = {'f64_bits': f64_bits(v[0]), 'repr': repr(float(v[0]))}
                elif types[f] in (3, 5):
                    data = np.ascontiguousarray(v[:int(m['size'])]).tobytes()
                    if types[f] == 5:
                        text = data.split(b'\0', 1)[0].decode('utf8')
                        out[name] = {'value': json_safe(json.loads(text)), 'size': len(data), 'sha256': sha256(data)}
                    else:
                        out[name] = {'size': len(data), 'sha256': sha256(data), 'head_hex': data[:32].hex()}
                elif types[f] in (4, 6):
                    a = np.ascontiguousarray(v)
                    out[name] = {'dtype': h.dtype.str, 'shape': list(a.shape), 'sha256': sha256(a.tobytes()),
                                 'values': array_values(a)}
                elif types[f] == 2:
                    out[name] = {'mode': 'jpg' if int(m['mode']) == 0 else 'raw', 'width': int(m['width']),
                                 'height': int(m['height']), 'sha256': sha256(np.ascontiguousarray(v).tobytes())}
            samples.append(out)
    return {'samples': samples}
