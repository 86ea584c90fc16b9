"""The `bench` mode of the probe child: the seed experiment (pytorch/examples MNIST Net), timed correctly.

Timing rules (reference/performance.md section 5): synchronize the device before every clock read, keep
.item() and other host reads out of the timed loop, time the cold first step apart, exclude warm-up, and
report the median of several windows.

mpsd_net imports torch, so it is imported inside the functions that run after the torch stage: a target without
a working torch still answers the interpreter and torch stages, as in `check` mode.
"""
import itertools
import platform
import statistics
import time
import warnings

import mpsd_idx
import mpsd_probe


def make_sync(torch, device):
    """The function that waits for DEVICE's queued work (mpsd_probe.synchronizer)."""
    return mpsd_probe.synchronizer(torch, device)


def time_windows(step, sync, windows, steps, clock=time.perf_counter, on_window=lambda number: None):
    """Milliseconds per step for each of WINDOWS windows of STEPS calls; the device is synced before each clock read.
    ON_WINDOW(number), counted from 1, hears each window begin, before its first sync, so that it is never timed."""
    results = []
    for number in range(1, windows + 1):
        on_window(number)
        sync()
        started = clock()
        for _ in range(steps):
            step()
        sync()
        results.append((clock() - started) * 1e3 / steps)
    return results


class MnistDataset(object):
    """IDX images decoded and normalized one sample at a time, like torchvision's ToTensor + Normalize in the seed."""

    def __init__(self, torch, images, labels, length=None):
        import mpsd_net

        self.torch, self.images, self.labels = torch, images, labels
        self.mean, self.std = mpsd_net.MNIST_MEAN, mpsd_net.MNIST_STD
        self.count = len(images)
        self.length = length or self.count

    def __len__(self):
        return self.length

    def __getitem__(self, index):
        j = index % self.count
        raw = bytearray(self.images.data[j * 784:(j + 1) * 784])
        pixels = self.torch.frombuffer(raw, dtype=self.torch.uint8).reshape(1, 28, 28)
        x = pixels.to(self.torch.float32).div(255.0).sub(self.mean).div(self.std)
        return x, int(self.labels.data[j])


def batch_source(torch, device, images, labels, options, length):
    """An endless iterator of (x, y) batches on DEVICE, from data resident on the device or from a DataLoader."""
    import mpsd_net

    batch = options["batch"]
    if options["pipeline"] == "loader":
        dataset = MnistDataset(torch, images, labels, length)
        loader = torch.utils.data.DataLoader(dataset, batch_size=batch, shuffle=True, drop_last=True,
                                             num_workers=options.get("workers", 0))

        def loader_batches():
            while True:
                for x, y in loader:
                    yield x.to(device), y.to(device)

        return loader_batches()
    x_all, y_all = mpsd_net.to_tensors(images, labels)
    x_all, y_all = x_all.to(device), y_all.to(device)
    count = x_all.shape[0] - x_all.shape[0] % batch
    starts = list(range(0, count, batch))
    return ((x_all[s:s + batch], y_all[s:s + batch]) for s in itertools.cycle(starts))


def device_name(torch, device, torch_data):
    """What the output calls DEVICE."""
    if device == "cuda":
        return torch.cuda.get_device_name(0)
    if device == "mps":
        return torch_data.get("mps", {}).get("name") or "Apple GPU"
    return "%s CPU, %d threads" % (platform.machine(), torch.get_num_threads())


def bench_device(torch, device, images, labels, options, emit):
    """Cold first step, then either timed windows (quick) or whole epochs, on DEVICE."""
    import mpsd_net

    sync = make_sync(torch, device)
    torch.manual_seed(options.get("seed", 1))
    model = mpsd_net.make_model(device, seed=options.get("seed", 1))
    optimizer = mpsd_net.make_optimizer(model)
    model.train()
    epochs = options.get("epochs", 0)
    per_epoch = options.get("images_per_epoch") or len(images)
    source = batch_source(torch, device, images, labels, options, per_epoch)
    batches = lambda: next(source)  # noqa: E731
    result = {"device": device, "batch": options["batch"], "pipeline": options["pipeline"]}

    def phase(name, **where):
        """Say what runs next in a progress frame, always outside every timed region: the progress line shows it,
        and a stop (--timeout, a crash) is attributed to it (bench.running, render/progress.py; facts.step_work)."""
        where.update(device=device, phase=name)
        emit("progress", "bench", where)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        phase("cold-step")
        sync()
        started = time.perf_counter()
        mpsd_net.train_step(model, optimizer, *batches())
        sync()
        result["cold_first_step_ms"] = (time.perf_counter() - started) * 1e3

        def step():
            mpsd_net.train_step(model, optimizer, *batches())

        if options["warmup"]:
            phase("warm-up", steps=options["warmup"])
        for _ in range(options["warmup"]):
            step()
        if epochs:
            steps = per_epoch // options["batch"]
            result["epochs"] = []
            for epoch in range(epochs):
                sync()
                started = time.perf_counter()
                every = max(1, steps // 50)
                for index in range(steps):
                    step()
                    if index % every == 0:
                        phase("epoch", epoch=epoch + 1, epochs=epochs, step=index, steps=steps)
                sync()
                seconds = time.perf_counter() - started
                result["epochs"].append({"seconds": seconds, "steps": steps, "images": steps * options["batch"]})
            result["window_ms"] = [e["seconds"] * 1e3 / e["steps"] for e in result["epochs"]]
        else:
            windows = options["windows"]
            result["window_ms"] = time_windows(step, sync, windows, options["steps"], on_window=lambda number:
                                               phase("window", window=number, windows=windows))
            result["steps_per_window"] = options["steps"]
        loss = mpsd_net.train_step(model, optimizer, *batches())
        result["final_loss"] = float(loss)
    result["median_ms"] = statistics.median(result["window_ms"])
    result["warnings"] = mpsd_probe.warning_texts(caught)
    return result


def run(options, emit):
    """Bench each device of OPTIONS in turn (CPU first), one result frame per device."""
    torch_data, torch = mpsd_probe.first_stages(emit)
    if torch is None:
        return
    emit("progress", "bench", {"phase": "data"})
    images, labels = mpsd_idx.load_split(options["data_dir"], train=True)
    threads = options.get("threads")
    if threads:
        torch.set_num_threads(int(threads))
    for device in options["devices"]:
        if device == "auto":
            device = mpsd_probe.resolve_device(device, torch_data)
            if device == "cpu" and ("cpu" in options["devices"] or options.get("no_cpu")):
                continue
        if not mpsd_probe.device_usable(torch_data, device):
            emit("result", "bench-" + device, {"device": device, "unavailable": True})
            continue
        emit("begin", "bench-" + device)
        try:
            result = bench_device(torch, device, images, labels, options, emit)
            result["name"] = device_name(torch, device, torch_data)
            if device == "cuda":
                result["tf32_convolutions"] = bool(torch.backends.cudnn.allow_tf32)
            emit("result", "bench-" + device, result)
        except Exception as exc:
            emit("result", "bench-" + device, {"device": device, "error": mpsd_probe.error_facts(exc)})
