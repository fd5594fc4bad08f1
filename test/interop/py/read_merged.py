"""Reads whole .beton files through FFCV's Loader (default decoders, sequential order) and
returns every sample in a canonical form, so the TS side can compare values with its own.

Job: {"files": [{"path": P, "bytes_sizes": {field: [size per sample]}}]}
Out: {P: [{field: value}, ...]} with ints as decimal strings, floats as f64 bits, and
sha256 digests of decoded images, arrays, JSON payloads (up to and including the NUL) and
bytes (the first `size` bytes of FFCV's padded row: BytesDecoder rows are max-size wide).
"""
from common import job, done, sha256, f64_bits
from ffcv.loader import Loader, OrderOption

out = {}
for spec in job()['files']:
    path = spec['path']
    sizes = spec.get('bytes_sizes', {})
    loader = Loader(path, batch_size=16, num_workers=1, order=OrderOption.SEQUENTIAL, drop_last=False)
    handlers = list(loader.reader.handlers.items())
    samples = []
    for batch in loader:
        for row in range(batch[0].shape[0]):
            i = len(samples)
            s = {}
            for (name, field), col in zip(handlers, batch):
                kind = type(field).__name__
                v = col[row]
                v = v.numpy() if hasattr(v, 'numpy') else v  # some default pipelines end in torch
                if kind == 'IntField':
                    s[name] = str(int(v[0]) if v.ndim else int(v))
                elif kind == 'FloatField':
                    s[name] = f64_bits(v[0] if v.ndim else v)
                elif kind in ('BytesField', 'JSONField') and name in sizes:
                    s[name] = sha256(bytes(v)[:sizes[name][i]])
                elif kind in ('BytesField', 'JSONField'):
                    # FFCV's reader rebuilds a JSONField as a BytesField (from_binary is
                    # inherited), so JSON is told apart by having no sizes: its payload
                    # ends at the first NUL, which is part of the stored bytes.
                    b = bytes(v)
                    s[name] = sha256(b[:b.index(0) + 1])
                else:  # RGBImageField, NDArrayField, TorchTensorField: the decoded array
                    s[name] = sha256(v.tobytes())
            samples.append(s)
    out[path] = samples
done(out)
