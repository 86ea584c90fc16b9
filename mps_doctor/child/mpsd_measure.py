"""The measured stages of `mps-doctor model` on the device: memory, speed (timed as `bench` times) and parity with
the CPU (stdlib and torch only, Python 3.7+)."""
import os
import statistics
import time

import mpsd_bench
import mpsd_probe
import mpsd_trace
from mpsd_step import default_loss, make_optimizer, place, train_step

# Seconds one timing window aims at; a slower step gets a window of one step.
WINDOW_SECONDS = 0.3
WINDOWS = 3


def allocated_reader(torch, device):
    """The function that reads the bytes the allocator of DEVICE holds for tensors now; None without one."""
    if device == "cuda":
        return torch.cuda.memory_allocated
    mps = getattr(torch, "mps", None)
    return getattr(mps, "current_allocated_memory", None) if mps is not None else None


def step_peak(session, batch):
    """Bytes the allocator held at the peak of the second training step at BATCH (the first creates the optimizer
    state), and at the end of its backward (activations and gradients: what grows with the batch), above what it held
    before the model was placed; and whether every operator was sampled."""
    torch, device = session.torch, session.device
    read = allocated_reader(torch, device)
    sync = session.sync(device)
    session.free()
    before = int(read())
    built = session.at_batch(batch)
    model = built.model.to(device)
    args, kwargs = place(built.args, device), place(built.kwargs, device)
    optimizer = make_optimizer(torch, model)
    model.train()
    train_step(model, args, kwargs, built.loss, optimizer)
    sync()
    sampled = True
    backward = []
    if device == "cuda":
        torch.cuda.reset_peak_memory_stats()
        train_step(model, args, kwargs, built.loss, optimizer,
                   after_backward=lambda: backward.append(int(torch.cuda.max_memory_allocated())))
        sync()
        peak = int(torch.cuda.max_memory_allocated())
    else:
        sampler = mpsd_trace.make_peak_sampler(torch, read)
        if sampler is None:
            sampled = False
            train_step(model, args, kwargs, built.loss, optimizer, after_backward=lambda: backward.append(int(read())))
            peak = 0
        else:
            with sampler:
                train_step(model, args, kwargs, built.loss, optimizer,
                           after_backward=lambda: backward.append(sampler.peak))
            peak = sampler.peak
        sync()
        peak = max(peak, int(read()))
    del model, optimizer, args, kwargs, built
    session.free()
    return peak - before, max(backward[0] - before, 0), sampled


def memory_stage(session):
    """The peak of one step at the batch, and at a second batch where the factory takes batch= (so the doctor can
    fit fixed and per-sample bytes); the limit: torch.mps.recommended_max_memory() or the GPU's total memory."""
    torch, device = session.torch, session.device
    facts = {"device": device, "points": []}
    if allocated_reader(torch, device) is None:
        facts["unavailable"] = "torch %s has no allocator statistics for %s" % (torch.__version__, device)
        return facts
    batches = [session.batch]
    if session.with_batch and session.batch:
        batches.append(session.batch // 2 if session.batch > 1 else 2)
    for batch in batches:
        session.progress(phase="memory", device=device, batch=batch)
        try:
            peak, backward, sampled = step_peak(session, batch)
        except BaseException as exc:
            facts["error"] = dict(mpsd_probe.error_facts(exc), batch=batch)
            session.free()
            break
        facts["points"].append({"batch": batch, "peak_bytes": peak, "backward_peak_bytes": backward, "sampled": sampled})
    if device == "cuda":
        facts["limit_bytes"] = int(torch.cuda.get_device_properties(0).total_memory)
        facts["limit_source"] = "torch.cuda.get_device_properties(0).total_memory"
    else:
        limit = mpsd_probe.call_or_none(getattr(torch, "mps", None), "recommended_max_memory")
        facts["limit_bytes"] = int(limit) if limit else None
        facts["limit_source"] = "torch.mps.recommended_max_memory()" if limit else None
        facts["driver_allocated_bytes"] = mpsd_probe.call_or_none(getattr(torch, "mps", None), "driver_allocated_memory")
    facts["high_watermark_ratio"] = os.environ.get("PYTORCH_MPS_HIGH_WATERMARK_RATIO")
    return facts


def time_device(session, device, batch, windows=WINDOWS):
    """The cold step and WINDOWS timed windows of warm steps on DEVICE at BATCH (the device synchronized before every
    clock read, the cold step apart, one warm-up step excluded, as `bench` times)."""
    torch = session.torch
    built = session.at_batch(batch)
    model = built.model.to(device)
    args, kwargs = place(built.args, device), place(built.kwargs, device)
    optimizer = make_optimizer(torch, model)
    model.train()
    sync = session.sync(device)

    def step():
        train_step(model, args, kwargs, built.loss, optimizer)

    sync()
    started = time.perf_counter()
    step()
    sync()
    cold = (time.perf_counter() - started) * 1e3
    started = time.perf_counter()
    step()
    sync()
    warm = time.perf_counter() - started
    steps = max(1, min(20, int(WINDOW_SECONDS / max(warm, 1e-6))))
    window_ms = mpsd_bench.time_windows(step, sync, windows, steps) if windows else [warm * 1e3]
    return {"cold_ms": cold, "window_ms": window_ms, "steps_per_window": steps}


def crossover_scan(session, budget):
    """Median step times on the device and the CPU at batches 1, 2, 4, ... up to the batch (further, up to 8 times
    it, while the device is slower), until the device wins, a batch fails, or BUDGET seconds are spent."""
    device, started, points = session.device, time.perf_counter(), []
    batch, last = 1, max(1, session.batch or 1)
    complete = False
    while batch <= 8 * last:
        if time.perf_counter() - started > budget:
            break
        session.progress(phase="scan", device=device, batch=batch)
        try:
            point = {"batch": batch}
            for where in (device, "cpu"):
                point[where + "_ms"] = statistics.median(time_device(session, where, batch, windows=3)["window_ms"])
        except BaseException as exc:
            points.append({"batch": batch, "error": mpsd_probe.error_facts(exc)["type"]})
            break
        points.append({"batch": point["batch"], "device_ms": point[device + "_ms"], "cpu_ms": point["cpu_ms"]})
        if batch >= last and point[device + "_ms"] < point["cpu_ms"]:
            complete = True
            break
        batch *= 2
    else:
        complete = True
    return points, complete


def speed_stage(session):
    """Step time on the device and on the CPU at the batch, and where the factory takes batch= the scan for the
    batch from which the device is faster."""
    torch, device = session.torch, session.device
    facts = {"device": device, "batch": session.batch, "runs": {}}
    for where in ((device, "cpu") if device != "cpu" else ("cpu",)):
        session.progress(phase="speed", device=where, batch=session.batch)
        facts["runs"][where] = time_device(session, where, session.batch)
    if device == "cuda":
        facts["tf32"] = {"matmul": bool(torch.backends.cuda.matmul.allow_tf32),
                         "cudnn": bool(torch.backends.cudnn.allow_tf32),
                         "float32_matmul_precision": mpsd_probe.call_or_none(torch, "get_float32_matmul_precision")}
    budget = float(session.options.get("scan_seconds", 60))
    if device != "cpu" and session.with_batch and session.batch and budget > 0:
        facts["scan"], facts["scan_complete"] = crossover_scan(session, budget)
    return facts


HALF_DTYPES = ("float16", "bfloat16")


def step_gradients(session, where, dtype):
    """Loss and gradients of one eval-mode step of a copy of the model on WHERE, converted to DTYPE (None: as it is)."""
    built = session.built
    model = session.model_copy()
    model = (model.to(dtype) if dtype is not None else model).to(where)
    model.eval()
    output = model(*place(built.args, where, dtype), **place(built.kwargs, where, dtype))
    loss = built.loss(output) if built.loss is not None else default_loss(output)
    loss.backward()
    return loss.detach(), [(name, p.grad.detach()) for name, p in model.named_parameters() if p.grad is not None]


def compared(result, reference):
    """mpsd_probe.compare of a (loss, gradients) RESULT against REFERENCE, gradient by gradient name."""
    grads = dict(reference[1])
    return (mpsd_probe.compare("loss", result[0], reference[0]),
            [mpsd_probe.compare(name, grad, grads[name]) for name, grad in result[1] if name in grads])


def parity_stage(session):
    """Loss and gradients of one step (eval mode: no dropout, batch norm from its running statistics; same weights
    and inputs; TF32 off on CUDA) on the device against the CPU: float32 for an accelerator (float64 for the CPU). A
    float16 or bfloat16 model is also run on the CPU in its own dtype against the same reference: that baseline says
    how far the dtype itself strays, so that the device is judged against it."""
    torch, device = session.torch, session.device
    session.progress(phase="parity", device=device)
    dtypes = set(mpsd_trace.dtype_name(p.dtype) for p in session.built.model.parameters())
    half = next((d for d in HALF_DTYPES if d in dtypes), None)
    wide = torch.float64 if device == "cpu" else torch.float32
    saved = mpsd_probe.tf32_off(torch) if device == "cuda" else None
    try:
        on_device = step_gradients(session, device, None)
        reference = step_gradients(session, "cpu", wide)
        baseline = step_gradients(session, "cpu", None) if half and device != "cpu" else None
    finally:
        if saved is not None:
            torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32 = saved
    loss, grads = compared(on_device, reference)
    facts = {"device": device, "reference": "cpu-float64" if device == "cpu" else "cpu-float32", "dtype": half,
             "loss": loss, "grads": grads}
    if baseline is not None:
        facts["baseline_loss"], facts["baseline_grads"] = compared(baseline, reference)
    return facts
