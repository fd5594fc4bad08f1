/**
 * The Python side of the `ffcv` and `torch` engines: one child process per engine runs every
 * grid point of that engine and times its batches, printing JSON lines the sweep reads
 * (python-engine.ts). Kept as text here (not a .py beside the package) so the CLI, the app
 * and a bundled build all find it; it is written to a temporary file and run from there
 * (a file, not `-c`: DataLoader workers started by forkserver/spawn re-import the main module).
 *
 * Input, one JSON document on stdin:
 *   { engine, warmupBatches, seconds, slices, stageSeconds,
 *     points: [{ index, code?, ablations?: [{ stage, code }], torch? }] }
 * `code` is the FFCV Loader as `beton export` writes it (it defines `loader`); `torch` the
 * DataLoader's settings. Output, one JSON object per line on stdout:
 *   {"ready": {versions}}                           after the imports
 *   {"start": i}                                    the measured part of point i begins
 *   {"n": images, "w": ms}                          after each measured batch (cumulative; w: its wait)
 *   {"point": i, images, seconds, batches, waits, slices}   point i measured
 *   {"ablating": i, stage, k, of}                   timing prefix k of `of` of point i begins
 *   {"ablation": i, stage, imagesPerSec}            one pipeline prefix of point i
 *   {"error": message}                              then exit 1
 * Timing is the consumer's: the time each `next()` waited and images per wall second over
 * the measured window, after `warmupBatches` batches (worker start-up, numba compilation).
 */
export const PYTHON_DRIVER = String.raw`
import json, os, sys, time, traceback


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def make_ffcv(code):
    ns = {"__name__": "beton_profile_point"}
    exec(compile(code, "<beton export>", "exec"), ns)
    return ns["loader"]


def make_torch(t):
    import torch
    from torchvision import datasets, transforms as T
    d = t["decoder"]
    tf = []
    if d["kind"] == "rrc":
        tf.append(T.RandomResizedCrop(d["size"], scale=(0.08, 1.0), ratio=(3 / 4, 4 / 3)))
    elif d["kind"] == "center":
        tf += [T.Resize(int(round(d["size"] / d["ratio"]))), T.CenterCrop(d["size"])]
    if t["flip"]:
        tf.append(T.RandomHorizontalFlip())
    tf.append(T.PILToTensor())  # uint8 CHW, as our ToCHW
    ds = Skipping(datasets.ImageFolder(t["source"], transform=T.Compose(tf)))
    w = t["workers"]
    return torch.utils.data.DataLoader(
        ds, batch_size=t["batchSize"], shuffle=t["shuffle"], num_workers=w, drop_last=True,
        persistent_workers=True, prefetch_factor=max(1, -(-t["batchesAhead"] // w)),
    )


class Skipping:
    """An ImageFolder that skips files it cannot read (a corrupt JPEG), as beton build reports them: one stderr line each."""

    def __init__(self, ds):
        self.ds = ds

    def __len__(self):
        return len(self.ds)

    def __getitem__(self, i):
        n = len(self.ds)
        for k in range(n):
            j = (i + k) % n
            try:
                return self.ds[j]
            except Exception as e:
                sys.stderr.write("beton: skipped unreadable %s: %s\n" % (self.ds.samples[j][0], (type(e).__name__ + ": " + str(e))[:200]))
                sys.stderr.flush()
        raise RuntimeError("no readable image in the source folder")


def batch_size_of(b):
    x = b[0] if isinstance(b, (list, tuple)) else b
    return int(x.shape[0])


class Batches:
    """Endless batches over epochs, one iterator at a time (FFCV runs one epoch thread per iterator)."""

    def __init__(self, loader):
        self.loader = loader
        self.it = iter(loader)

    def next(self):
        empty = 0
        while True:
            try:
                return next(self.it)
            except StopIteration:
                # An epoch without a batch (fewer samples than one batch, drop_last) would loop forever.
                empty += 1
                if empty > 1:
                    raise RuntimeError("the loader yields no batch: fewer samples than one batch")
                self.close()
                self.it = iter(self.loader)

    def close(self):
        c = getattr(self.it, "close", None)
        if c is not None:
            try:
                c()
            except Exception:
                pass


def measure(loader, warmup, seconds, live, nslices):
    src = Batches(loader)
    try:
        for _ in range(warmup):
            src.next()
        arrivals = []
        waits = []
        images = 0
        t0 = time.perf_counter()
        deadline = t0 + seconds
        while True:
            a = time.perf_counter()
            b = src.next()
            got = time.perf_counter()
            n = batch_size_of(b)
            images += n
            waits.append((got - a) * 1000)
            arrivals.append((got - t0, n))
            if live:
                emit({"n": images, "w": (got - a) * 1000})
            if got >= deadline:
                break
        total = max(1e-6, time.perf_counter() - t0)
        k = max(1, nslices)
        width = total / k
        counts = [0] * k
        for (t, n) in arrivals:
            counts[min(k - 1, int(t / width))] += n
        return {"images": images, "seconds": total, "batches": len(waits), "waits": waits,
                "slices": [c / width for c in counts]}
    finally:
        src.close()


def main():
    job = json.load(sys.stdin)
    engine = job["engine"]
    versions = {"python": sys.version.split()[0]}
    import torch
    torch.set_num_threads(1)  # the loader's workers are the parallelism, as in ours
    versions["torch"] = torch.__version__
    if engine == "ffcv":
        import ffcv
        versions["ffcv"] = getattr(ffcv, "__version__", "?")
    else:
        import torchvision
        versions["torchvision"] = torchvision.__version__
    emit({"ready": versions})
    for p in job["points"]:
        i = p["index"]
        loader = make_ffcv(p["code"]) if engine == "ffcv" else make_torch(p["torch"])
        # Warm-up before "start": the sweep stamps telemetry with the point from then on.
        src = Batches(loader)
        for _ in range(job["warmupBatches"]):
            src.next()
        src.close()
        emit({"start": i})
        r = measure(loader, 0, job["seconds"], True, job["slices"])
        r["point"] = i
        emit(r)
        del loader
        abl = p.get("ablations", [])
        for k, a in enumerate(abl):
            emit({"ablating": i, "stage": a["stage"], "k": k + 1, "of": len(abl)})
            ab = make_ffcv(a["code"])
            r = measure(ab, job["warmupBatches"], job["stageSeconds"], False, 1)
            emit({"ablation": i, "stage": a["stage"], "imagesPerSec": r["images"] / r["seconds"]})
            del ab


if __name__ == "__main__":
    try:
        main()
    except BaseException as e:
        if isinstance(e, KeyboardInterrupt):
            sys.exit(130)
        sys.stderr.write(traceback.format_exc())
        emit({"error": (type(e).__name__ + ": " + str(e))[:500]})
        sys.stderr.flush()
        # Not sys.exit: DataLoader workers (and their pipes, our stdout among them) would keep the
        # engine alive until the silence timeout; the error is said, the process is done.
        os._exit(1)
`;
