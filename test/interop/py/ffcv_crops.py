"""FFCV's own crop functions on a vector file (issue 33 item 7): the reference that
test/writer/small-datasets.test.ts compares our crops with, computed by FFCV rather than by a
TypeScript copy. Input (float64, little-endian): per case h, w, centre ratio, scale lo/hi,
ratio lo/hi, then DRAWS uniform [0, 1) numbers. FFCV's get_random_crop draws through
np.random.uniform(a, b); it is given a + (b - a) * the case's next number instead, so both
sides use the same randomness and everything else (logs, rounding, bounds, the fallback) is
FFCV's. Output (int32): per case the centre crop (y, x, h, w) then the random one."""
import sys
from types import SimpleNamespace

import numpy as np
import ffcv.fields.rgb_image as rgb

PER_CASE, DRAWS = 7, int(sys.argv[3])
cases = np.fromfile(sys.argv[1], dtype="<f8").reshape(-1, PER_CASE + DRAWS)
state = {"draws": None, "k": 0}


def uniform(a, b):
    u = state["draws"][state["k"]]
    state["k"] += 1
    return a + (b - a) * u


# FFCV's module looks np up at call time: its own maths, our draws.
rgb.np = SimpleNamespace(log=np.log, exp=np.exp, sqrt=np.sqrt, random=SimpleNamespace(uniform=uniform))
out = np.zeros((len(cases), 8), dtype="<i4")
for n, c in enumerate(cases):
    h, w = int(c[0]), int(c[1])
    state["draws"], state["k"] = c[PER_CASE:], 0
    out[n, :4] = rgb.get_center_crop(h, w, None, float(c[2]))
    out[n, 4:] = rgb.get_random_crop(h, w, (float(c[3]), float(c[4])), (float(c[5]), float(c[6])))
out.tofile(sys.argv[2])
