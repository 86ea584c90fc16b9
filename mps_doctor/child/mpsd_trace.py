"""The operator trace of `mps-doctor model`: every ATen operator that one training step dispatches, recorded with a
TorchDispatchMode (torch.utils._python_dispatch), with the dtypes and devices of its tensors.

A dispatch mode sits below autograd and below CompositeImplicitAutograd decompositions, so it sees the operators
that reach a backend kernel (or a CompositeExplicitAutograd one): the forward, the backward that autograd runs (its
engine threads inherit the mode, c10's ThreadLocalState), and the optimizer step.
"""

# The text of MPSFallback.mm's error for an operator without an MPS kernel when PYTORCH_ENABLE_MPS_FALLBACK is off
# (torch 1.12.1 to 2.15.0 wheels: "The operator 'aten::X' is not currently implemented for the MPS device. ...").
MISSING_KERNEL = "not currently implemented for the MPS device"


def dispatch_mode_class(torch):
    """TorchDispatchMode where this torch pushes it on its mode stack as a context manager (2.0 and later: 1.12 and
    1.13 had a single global mode set through enable_torch_dispatch_mode), else None."""
    if not hasattr(torch._C, "_push_on_torch_dispatch_stack"):
        return None
    try:
        from torch.utils._python_dispatch import TorchDispatchMode
    except ImportError:
        return None
    return TorchDispatchMode


def overload_name(func):
    """'aten::add.Tensor': the operator's schema name and overload ('default' when it has none)."""
    schema = func._schema
    return "%s.%s" % (schema.name, schema.overload_name or "default")


def tensors(value):
    """Every tensor in VALUE (nested tuples, lists and dicts)."""
    if isinstance(value, (list, tuple)):
        for item in value:
            for tensor in tensors(item):
                yield tensor
    elif isinstance(value, dict):
        for item in value.values():
            for tensor in tensors(item):
                yield tensor
    elif hasattr(value, "dtype") and hasattr(value, "device") and hasattr(value, "shape"):
        yield value


def mapped(value, fn):
    """VALUE with FN applied to each tensor in it (tuples, lists and dicts rebuilt)."""
    if isinstance(value, (list, tuple)):
        return type(value)(mapped(item, fn) for item in value)
    if isinstance(value, dict):
        return dict((key, mapped(item, fn)) for key, item in value.items())
    if hasattr(value, "dtype") and hasattr(value, "device") and hasattr(value, "shape"):
        return fn(value)
    return value


def dtype_name(dtype):
    """'float32' for torch.float32."""
    return str(dtype).replace("torch.", "")


def add_once(items, value):
    if value not in items:
        items.append(value)


def run_on_cpu(func, args, kwargs):
    """FUNC on CPU copies of its tensor arguments, as torch's own fallback does (MPSFallback.mm, mps_fallback): the
    arguments it writes to are copied back, the other outputs moved to the device of the first tensor argument."""
    device = next((t.device for t in tensors((args, kwargs))), None)
    copies = {}

    def to_cpu(tensor):
        moved = tensor.to("cpu", copy=True)  # a copy even where the device's memory is the CPU's
        copies[id(moved)] = tensor
        return moved

    cpu_args, cpu_kwargs = mapped(args, to_cpu), mapped(kwargs, to_cpu)
    out = func(*cpu_args, **cpu_kwargs)
    written = {}
    for index, argument in enumerate(func._schema.arguments):
        alias = argument.alias_info
        if alias is None or not alias.is_write:
            continue
        moved = cpu_args[index] if index < len(cpu_args) else cpu_kwargs.get(argument.name)
        for tensor in tensors(moved):
            copies[id(tensor)].copy_(tensor)
            written[id(tensor)] = copies[id(tensor)]
    return mapped(out, lambda tensor: written[id(tensor)] if id(tensor) in written else tensor.to(device))


def make_tracer(torch):
    """A dispatch mode that records each operator (count, phases, dtypes, its first tensor argument's dtypes,
    devices); an operator that raises MPS's missing-kernel NotImplementedError is recorded and run on the CPU, so
    that one step names every such operator. None where this torch has no usable TorchDispatchMode."""
    mode = dispatch_mode_class(torch)
    if mode is None:
        return None

    class OperatorTrace(mode):
        """Set `phase` to forward, backward or optimizer while the step runs; read `ops`, `refused` and `current`."""

        def __init__(self):
            mode.__init__(self)
            self.phase = "forward"
            self.ops = {}
            self.refused = []
            self.current = None

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            name = overload_name(func)
            entry = self.ops.get(name)
            if entry is None:
                entry = self.ops[name] = {"name": name, "count": 0, "phases": [], "dtypes": [], "self_dtypes": [],
                                          "devices": []}
            entry["count"] += 1
            add_once(entry["phases"], self.phase)
            first = next(tensors((args, kwargs)), None)
            if first is not None:
                add_once(entry["self_dtypes"], dtype_name(first.dtype))
            for tensor in tensors((args, kwargs)):
                add_once(entry["dtypes"], dtype_name(tensor.dtype))
                add_once(entry["devices"], tensor.device.type)
            self.current = name
            try:
                out = func(*args, **kwargs)
            except NotImplementedError as exc:
                if MISSING_KERNEL not in str(exc):
                    raise
                if name not in [item["op"] for item in self.refused]:
                    self.refused.append({"op": name, "type": type(exc).__name__, "message": str(exc)})
                out = run_on_cpu(func, args, kwargs)
            for tensor in tensors(out):
                add_once(entry["dtypes"], dtype_name(tensor.dtype))
            return out

        def operators(self):
            """The recorded operators in the order first seen."""
            return list(self.ops.values())

    return OperatorTrace()


def make_peak_sampler(torch, read):
    """A dispatch mode that calls READ() (allocated bytes) after every operator and keeps the largest value in
    `peak`: the peak of a step on an allocator without peak statistics (torch.mps has only current values). None
    where this torch has no usable TorchDispatchMode."""
    mode = dispatch_mode_class(torch)
    if mode is None:
        return None

    class PeakSampler(mode):
        def __init__(self):
            mode.__init__(self)
            self.peak = 0

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            self.peak = max(self.peak, int(read()))
            return out

    return PeakSampler()
