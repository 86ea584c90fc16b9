"""The `model` mode of the probe child: one training step of the user's TARGET, on the CPU and on the device.

TARGET is code the user chose to run: `path/to/file.py:factory`, `package.module:factory` or a built-in
(mpsd_builtins). `factory()` returns `(model, example_inputs)` or `(model, example_inputs, loss_fn)`, like
torch.export's convention (example_inputs: a tensor, a tuple of positional arguments, or a dict of keyword
arguments; loss_fn(output) returns the loss); a factory that takes `batch=` is given the batch size. The step is
forward, loss, backward and an AdamW step with torch's defaults.

Stages, each framed by `begin` and `result` (a crash is attributed to its stage): interpreter and torch (as in
`check`), model-load, model-trace (the ATen operators of a CPU step), model-observe (the step on the device: fallback
warnings, missing-kernel errors, refusals), model-memory, model-speed and model-parity. PYTORCH_ENABLE_MPS_FALLBACK is
read once, when torch registers its MPS fallback kernel (MPSFallback.mm), so the doctor sets it in this process's
environment before torch is imported.
"""
import copy
import gc
import importlib
import importlib.util
import inspect
import os
import statistics
import sys
import time
import warnings

import mpsd_bench
import mpsd_builtins
import mpsd_probe
import mpsd_trace

STAGES = ("model-load", "model-trace", "model-observe", "model-memory", "model-speed", "model-parity")
# Seconds one timing window aims at; a slower step gets a window of one step.
WINDOW_SECONDS = 0.3
WINDOWS = 3


class TargetError(Exception):
    """The TARGET cannot be loaded or does not follow the convention; WHERE names the part."""

    def __init__(self, where, message):
        Exception.__init__(self, message)
        self.where = where


class Built(object):
    """One factory result: the model and its example inputs, on the CPU, and the loss function (None: the default)."""

    def __init__(self, model, args, kwargs, loss):
        self.model, self.args, self.kwargs, self.loss = model, args, kwargs, loss


def load_factory(torch, spec):
    """The factory that SPEC names: a built-in, a function in a Python file, or a function in an importable module."""
    kind = spec.get("kind")
    if kind == "builtin":
        return mpsd_builtins.factory(torch, spec["name"])
    if kind == "file":
        path = os.path.abspath(spec["path"])
        folder = os.path.dirname(path)
        if folder not in sys.path:
            sys.path.insert(1, folder)
        module_spec = importlib.util.spec_from_file_location("mpsd_target", path)
        if module_spec is None or module_spec.loader is None:
            raise TargetError("import", "%s is not a Python file that can be imported" % path)
        module = importlib.util.module_from_spec(module_spec)
        sys.modules["mpsd_target"] = module
        module_spec.loader.exec_module(module)
    else:
        if os.getcwd() not in sys.path:
            sys.path.insert(1, os.getcwd())
        module = importlib.import_module(spec["module"])
    found = module
    for part in spec["factory"].split("."):
        if not hasattr(found, part):
            raise TargetError("factory", "%s has no attribute %r" % (getattr(module, "__name__", "the module"), part))
        found = getattr(found, part)
    if not callable(found):
        raise TargetError("factory", "%s is not callable" % spec["factory"])
    return found


def takes_batch(factory):
    """Whether FACTORY accepts batch= (a parameter of that name, or **kwargs)."""
    try:
        parameters = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "batch" or p.kind == inspect.Parameter.VAR_KEYWORD for p in parameters)


def build(torch, factory, batch, with_batch):
    """Call FACTORY (with batch=BATCH when WITH_BATCH and a batch is asked for) and check what it returned."""
    result = factory(batch=batch) if with_batch and batch else factory()
    if not isinstance(result, (tuple, list)) or len(result) not in (2, 3):
        raise TargetError("result", "the factory returned %s, not (model, example_inputs) or (model, example_inputs, "
                                    "loss_fn)" % type(result).__name__)
    model, inputs = result[0], result[1]
    loss = result[2] if len(result) == 3 else None
    if not isinstance(model, torch.nn.Module):
        raise TargetError("result", "the factory's first value is a %s, not a torch.nn.Module" % type(model).__name__)
    if isinstance(inputs, torch.Tensor):
        args, kwargs = (inputs,), {}
    elif isinstance(inputs, (tuple, list)):
        args, kwargs = tuple(inputs), {}
    elif isinstance(inputs, dict):
        args, kwargs = (), dict(inputs)
    else:
        raise TargetError("result", "example_inputs is a %s, not a tensor, a tuple of arguments or a dict of keyword "
                                    "arguments" % type(inputs).__name__)
    if loss is not None and not callable(loss):
        raise TargetError("result", "the factory's third value (the loss function) is not callable")
    return Built(model, args, kwargs, loss)


def batch_of(built):
    """The size of the first dimension of the first example input, the batch; None when there is none."""
    first = next(mpsd_trace.tensors((built.args, built.kwargs)), None)
    return int(first.shape[0]) if first is not None and first.dim() > 0 else None


def default_loss(output):
    """The loss when the factory gives none: the sum of the means of the output's floating-point tensors."""
    parts = [t.mean() for t in mpsd_trace.tensors(output) if t.is_floating_point() or t.is_complex()]
    if not parts:
        raise TargetError("loss", "the model's output holds no floating-point tensor; return a loss function as the "
                                  "factory's third value")
    return sum(parts[1:], parts[0]).real if parts[0].is_complex() else sum(parts[1:], parts[0])


def make_optimizer(torch, model):
    """AdamW over MODEL's parameters with torch's defaults (lr 1e-3)."""
    return torch.optim.AdamW(model.parameters(), lr=1e-3)


def train_step(model, args, kwargs, loss_fn, optimizer, tracer=None):
    """Forward, loss, backward and the optimizer step, TRACER's phase set for each; the loss, not read back."""
    if tracer is not None:
        tracer.phase = "forward"
    output = model(*args, **kwargs)
    loss = loss_fn(output) if loss_fn is not None else default_loss(output)
    if tracer is not None:
        tracer.phase = "backward"
    loss.backward()
    if tracer is not None:
        tracer.phase = "optimizer"
    optimizer.step()
    optimizer.zero_grad()
    return loss.detach()


def place(value, device, dtype=None):
    """VALUE's tensors on DEVICE; with DTYPE, its floating-point tensors converted to it."""
    def move(tensor):
        if dtype is not None and tensor.is_floating_point():
            return tensor.to(device=device, dtype=dtype)
        return tensor.to(device)
    return mpsd_trace.mapped(value, move)


def parameter_facts(model):
    """Parameter count, bytes and dtypes of MODEL."""
    dtypes = {}
    count = size = 0
    for parameter in model.parameters():
        name = mpsd_trace.dtype_name(parameter.dtype)
        dtypes[name] = dtypes.get(name, 0) + parameter.numel()
        count += parameter.numel()
        size += parameter.numel() * parameter.element_size()
    buffers = sorted(set(mpsd_trace.dtype_name(b.dtype) for b in model.buffers()))
    return {"parameters": count, "parameter_bytes": size, "parameter_dtypes": dtypes, "buffer_dtypes": buffers}


class Session(object):
    """What the stages share: torch, the options, the device and the loaded TARGET."""

    def __init__(self, torch, options, device, usable, fallback_env, emit):
        self.torch, self.options, self.device, self.usable = torch, options, device, usable
        self.fallback_env, self.emit = fallback_env, emit
        self.factory = self.built = None
        self.with_batch = False
        self.batch = None
        self.device_failed = False

    def progress(self, **data):
        """A progress frame: what runs now, outside every timed region."""
        self.emit("progress", "model", data)

    def model_copy(self):
        """A copy of the loaded model with its weights: copy.deepcopy, or where the model refuses it (a module with
        torch.nn.utils.weight_norm's non-leaf weight), the factory's model again with the loaded state_dict."""
        try:
            return copy.deepcopy(self.built.model)
        except (RuntimeError, TypeError):
            model = build(self.torch, self.factory, self.batch, self.with_batch).model
            model.load_state_dict(self.built.model.state_dict())
            return model

    def at_batch(self, batch):
        """A fresh copy of the model and inputs at BATCH: the loaded ones at the loaded batch, else the factory's."""
        if batch == self.batch:
            built = self.built
            return Built(self.model_copy(), built.args, built.kwargs, built.loss)
        return build(self.torch, self.factory, batch, True)

    def sync(self, device):
        return mpsd_probe.synchronizer(self.torch, device)

    def free(self):
        """Release what finished measurements left on the device."""
        gc.collect()
        module = self.torch.cuda if self.device == "cuda" else getattr(self.torch, "mps", None)
        if self.usable and module is not None and hasattr(module, "empty_cache"):
            try:
                module.empty_cache()
            except Exception:
                pass


def load_stage(session):
    """Load TARGET and call its factory on the CPU: what the model and its inputs are."""
    torch, options = session.torch, session.options
    try:
        session.factory = load_factory(torch, options["target"])
    except TargetError as exc:
        return {"error": mpsd_probe.error_facts(exc), "where": exc.where}
    except BaseException as exc:  # the user's module raises anything, SystemExit included
        return {"error": mpsd_probe.error_facts(exc), "where": "import"}
    session.with_batch = takes_batch(session.factory)
    try:
        built = build(torch, session.factory, options.get("batch"), session.with_batch)
    except TargetError as exc:
        return {"error": mpsd_probe.error_facts(exc), "where": exc.where}
    except BaseException as exc:
        return {"error": mpsd_probe.error_facts(exc), "where": "factory"}
    model = built.model
    built.model = model.cpu() if any(p.device.type != "cpu" for p in model.parameters()) else model
    session.built, session.batch = built, batch_of(built)
    facts = parameter_facts(built.model)
    facts.update({
        "class": type(model).__name__, "module": type(model).__module__, "batch": session.batch,
        "batch_argument": session.with_batch, "loss": "given" if built.loss is not None else "default",
        "inputs": [{"shape": list(t.shape), "dtype": mpsd_trace.dtype_name(t.dtype)}
                   for t in mpsd_trace.tensors((built.args, built.kwargs))][:16],
        "trace_available": mpsd_trace.dispatch_mode_class(torch) is not None,
    })
    return facts


def trace_stage(session):
    """One training step on the CPU under the operator trace."""
    torch, built = session.torch, session.built
    tracer = mpsd_trace.make_tracer(torch)
    if tracer is None:
        return {"device": "cpu", "available": False}
    session.progress(phase="trace", device="cpu")
    model = session.model_copy()
    optimizer = make_optimizer(torch, model)
    model.train()
    started = time.perf_counter()
    facts = {"device": "cpu", "available": True}
    try:
        with tracer:
            facts["loss"] = float(train_step(model, built.args, built.kwargs, built.loss, optimizer, tracer))
    except BaseException as exc:
        facts.update(error=mpsd_probe.error_facts(exc), op=tracer.current, phase=tracer.phase)
    facts["seconds"] = time.perf_counter() - started
    facts["ops"] = tracer.operators()
    return facts


def observe_stage(session):
    """The step on the device, traced where torch can: each fallback warning (torch.set_warn_always makes
    TORCH_WARN_ONCE warn every time), each missing-kernel error, and the first other failure with where it happened."""
    torch, built, device = session.torch, session.built, session.device
    tracer = mpsd_trace.make_tracer(torch)
    facts = {"device": device, "fallback_env": session.fallback_env, "traced": tracer is not None}
    session.progress(phase="observe", device=device)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        where = "moving the model to %s" % device
        try:
            model = session.model_copy().to(device)
            where = "moving the example inputs to %s" % device
            args, kwargs = place(built.args, device), place(built.kwargs, device)
            where = "the training step on %s" % device
            optimizer = make_optimizer(torch, model)
            model.train()
            if tracer is not None:
                with tracer:
                    loss = train_step(model, args, kwargs, built.loss, optimizer, tracer)
            else:
                loss = train_step(model, args, kwargs, built.loss, optimizer)
            facts["loss"] = float(loss)
        except BaseException as exc:
            session.device_failed = True
            facts.update(error=mpsd_probe.error_facts(exc), where=where)
            if tracer is not None and where.startswith("the training step"):
                facts.update(op=tracer.current, phase=tracer.phase)
    texts = mpsd_probe.warning_texts(caught)
    facts["warnings"] = texts[:40]
    facts["fallback_warnings"] = [t for t in texts if any(m in t for m in mpsd_probe.FALLBACK_MARKERS)]
    facts["refused"] = tracer.refused if tracer is not None else []
    facts["ops"] = tracer.operators() if tracer is not None else None
    session.free()
    return facts


def allocated_reader(torch, device):
    """The function that reads the bytes the allocator of DEVICE holds for tensors now; None without one."""
    if device == "cuda":
        return torch.cuda.memory_allocated
    mps = getattr(torch, "mps", None)
    return getattr(mps, "current_allocated_memory", None) if mps is not None else None


def step_peak(session, batch):
    """Bytes the allocator held at the peak of the second training step at BATCH (the first creates the optimizer
    state), above what it held before the model was placed; and whether every operator was sampled."""
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
    if device == "cuda":
        torch.cuda.reset_peak_memory_stats()
        train_step(model, args, kwargs, built.loss, optimizer)
        sync()
        peak = int(torch.cuda.max_memory_allocated())
    else:
        sampler = mpsd_trace.make_peak_sampler(torch, read)
        if sampler is None:
            sampled = False
            train_step(model, args, kwargs, built.loss, optimizer)
            peak = 0
        else:
            with sampler:
                train_step(model, args, kwargs, built.loss, optimizer)
            peak = sampler.peak
        sync()
        peak = max(peak, int(read()))
    del model, optimizer, args, kwargs, built
    session.free()
    return peak - before, sampled


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
            peak, sampled = step_peak(session, batch)
        except BaseException as exc:
            facts["error"] = dict(mpsd_probe.error_facts(exc), batch=batch)
            session.free()
            break
        facts["points"].append({"batch": batch, "peak_bytes": peak, "sampled": sampled})
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
    if device != "cpu" and session.with_batch and session.batch:
        facts["scan"], facts["scan_complete"] = crossover_scan(session, float(session.options.get("scan_seconds", 60)))
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


RUNNERS = {"model-load": load_stage, "model-trace": trace_stage, "model-observe": observe_stage,
           "model-memory": memory_stage, "model-speed": speed_stage, "model-parity": parity_stage}


def wanted(session, stage):
    """Whether STAGE runs: load and trace always; observe and memory on a usable accelerator; speed and parity on it
    or on the CPU; none after the load failed, and none of the device's after its step failed there."""
    if stage in ("model-load", "model-trace"):
        return True
    if session.device == "cpu":
        return stage in ("model-speed", "model-parity")
    if not session.usable or (stage != "model-observe" and session.device_failed):
        return False
    return True


def run(options, emit):
    """The interpreter and torch stages as in `check`, then the model stages that OPTIONS["stages"] asks for."""
    fallback_env = os.environ.get("PYTORCH_ENABLE_MPS_FALLBACK")
    emit("begin", "interpreter")
    emit("result", "interpreter", mpsd_probe.interpreter_facts())
    emit("begin", "torch")
    torch_data, torch = mpsd_probe.torch_facts()
    emit("result", "torch", torch_data)
    if torch is None:
        return
    if hasattr(torch, "set_warn_always"):
        torch.set_warn_always(True)
    device = mpsd_probe.resolve_device(options.get("device", "auto"), torch_data)
    usable = mpsd_probe.device_usable(torch_data, device)
    session = Session(torch, options, device, usable, fallback_env, emit)
    for stage in STAGES:
        if stage not in options.get("stages", STAGES) or not wanted(session, stage):
            continue
        emit("begin", stage, {"device": device if stage != "model-trace" else "cpu"})
        try:
            data = RUNNERS[stage](session)
        except BaseException as exc:
            data = {"device": device, "error": mpsd_probe.error_facts(exc)}
            if stage == "model-observe":
                session.device_failed = True
        emit("result", stage, data)
        if stage == "model-load" and session.built is None:
            return
