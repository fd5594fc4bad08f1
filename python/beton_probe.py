"""beton_probe: time each training step's wait for data, for `beton profile --exec`.

    from beton_probe import watch
    for images, labels in watch(loader):
        train_step(images, labels)

`watch(iterable)` yields exactly the items of `iterable`. Under `beton profile --exec` (which
puts this file's folder on PYTHONPATH and sets BETON_PROBE=1) it also reports one line per
step, exactly:

    {"step": n, "images": N, "wait_ms": w, "step_ms": s}

n: steps so far; N: images so far (both cumulative within one watch(): a new watch() per epoch
starts again at 1, which beton reads as a counter reset); w: ms this step spent waiting for its
batch (inside next() of the loader); s: ms of the whole step (from asking for its batch to
asking for the next one: the wait plus the training step's work). The lines go to the file descriptor in BETON_PROBE_FD (a pipe beton reads, so they
do not clutter your terminal), else to stderr. Without BETON_PROBE it is silent and adds
nothing but a generator.

Standard library only. With cuda_sync (default: on when torch is already imported and CUDA
is available) it calls torch.cuda.synchronize() before asking for the next batch, so GPU work
queued by the step is counted in the step and not in the next wait.
"""

import json
import os
import sys
import time

__all__ = ["watch", "enabled"]


def enabled():
    """Whether this process runs under `beton profile --exec` (BETON_PROBE=1)."""
    return os.environ.get("BETON_PROBE", "") not in ("", "0")


_out = None


def _stream():
    global _out
    if _out is None:
        fd = os.environ.get("BETON_PROBE_FD", "")
        try:
            # closefd=False: the descriptor belongs to the process, and workers may share it.
            _out = os.fdopen(int(fd), "w", buffering=1, closefd=False) if fd else sys.stderr
        except (ValueError, OSError):
            _out = sys.stderr
    return _out


def _count(item, batch_size):
    """Images in one batch: batch_size when given, else the first dimension of the first tensor."""
    if batch_size is not None:
        return int(batch_size)
    first = item[0] if isinstance(item, (tuple, list)) and item else item
    if isinstance(first, dict) and first:
        first = next(iter(first.values()))
    shape = getattr(first, "shape", None)
    if shape is not None and len(shape) > 0:
        return int(shape[0])
    try:
        return len(first)
    except TypeError:
        return 1


def _cuda_synchronizer(cuda_sync):
    if cuda_sync is False:
        return None
    torch = sys.modules.get("torch")  # only if the program imported it: never import torch here
    try:
        if torch is not None and torch.cuda.is_available():
            return torch.cuda.synchronize
    except Exception:  # a broken CUDA set-up must not stop training
        return None
    return None


def watch(iterable, batch_size=None, cuda_sync=None):
    """Yields the items of `iterable`; under beton, reports each step's wait and duration.

    batch_size: images per item (default: the first dimension of the item's first tensor).
    cuda_sync: None (default) synchronizes CUDA when torch is imported and CUDA is available;
    False never does.

    A step is one item: from asking the iterator for it (wait_ms ends when next() returns) to
    asking for the next one (the training step's work on it). It is reported when the loop
    comes back for the next item, or ends. Measured from request to request rather than from
    hand-over to hand-over so that every step of an epoch is whole and the time between epochs
    (evaluation, checkpoints) belongs to no step.
    """
    if not enabled():
        yield from iterable
        return
    out = _stream()
    sync = _cuda_synchronizer(cuda_sync)
    clock = time.perf_counter
    it = iter(iterable)
    step = 0
    images = 0
    pending = None  # (asked, got) of the item the loop is working on

    def report(now):
        asked, got = pending
        line = {
            "step": step,
            "images": images,
            "wait_ms": round((got - asked) * 1000, 3),
            "step_ms": round((now - asked) * 1000, 3),
        }
        try:
            out.write(json.dumps(line) + "\n")
        except (OSError, ValueError):
            pass  # beton went away: keep training, stop reporting

    try:
        while True:
            if sync is not None and pending is not None:
                sync()  # the step's queued GPU work belongs to the step, not to the next wait
            asked = clock()
            if pending is not None:
                report(asked)
                pending = None
            try:
                item = next(it)
            except StopIteration:
                return
            got = clock()
            step += 1
            images += _count(item, batch_size)
            pending = (asked, got)
            yield item
    finally:
        # The loop stopped early (break, an exception): its last step ends here.
        if pending is not None:
            report(clock())
