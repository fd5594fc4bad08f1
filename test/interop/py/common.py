"""Shared bits of the interop drivers: job in, JSON out, canonical sample encoding."""
import hashlib
import json
import math
import struct
import sys

import numpy as np


def job():
    with open(sys.argv[1]) as f:
        return json.load(f)


def done(result):
    with open(sys.argv[2], 'w') as f:
        json.dump(result, f)


def sha256(b):
    return hashlib.sha256(bytes(b)).hexdigest()


def f64_bits(x):
    return struct.pack('>d', float(x)).hex()


def nested(a):
    """Array values as nested lists with NaN/Infinity as strings (the manifests' encoding)."""
    def one(v):
        if isinstance(v, float):
            if math.isnan(v):
                return 'NaN'
            if math.isinf(v):
                return 'Infinity' if v > 0 else '-Infinity'
        if isinstance(v, complex):
            return [one(v.real), one(v.imag)]
        return v
    def walk(v):
        return [walk(x) for x in v] if isinstance(v, list) else one(v)
    return walk(a.tolist())
