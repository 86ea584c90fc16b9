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
import sys
import time
import warnings

import mpsd_builtins
import mpsd_probe
import mpsd_trace
from mpsd_measure import memory_stage, parity_stage, speed_stage
from mpsd_step import Built, TargetError, batch_of, build, make_optimizer, place, train_step

STAGES = ("model-load", "model-trace", "model-observe", "model-memory", "model-speed", "model-parity")


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
    torch_data, torch = mpsd_probe.first_stages(emit)
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
