"""An emulated MPS torch for the test suite: this machine's CPU torch presents itself as a Mac with MPS.

Loaded into a probe child by the `sitecustomize.py` beside it when EMULATED_MPS names a torch release; never
shipped. Tensors on "mps" are CPU tensors of a subclass whose `.device` is mps:0.
What each release's Python API has or lacks is read from its macOS arm64 wheel (see API_SINCE); the messages
of the fallback and of the allocator are the strings of those wheels' libtorch_cpu.dylib.

Settings (environment):
  EMULATED_MPS              torch release to present, e.g. 1.13.1 (turns the emulation on)
  EMULATED_MPS_MACOS        macOS version (platform.mac_ver), EMULATED_MPS_KERNEL Darwin release (uname)
  EMULATED_MPS_CHIP, EMULATED_MPS_CORES, EMULATED_MPS_MAX_MEMORY   the GPU's name, cores, recommended working set
  EMULATED_MPS_AVAILABLE=0  MPS built but not available
  EMULATED_MPS_MISSING_OP   a torch call (e.g. max_pool2d) this MPS lacks, reported as aten::NAME: an error, or with
                            PYTORCH_ENABLE_MPS_FALLBACK=1 a run on the CPU with torch's warning
  EMULATED_MPS_WRONG_OP     a torch call (e.g. matmul) whose results on mps are off by one
  EMULATED_MPS_KERNELS      a kernel table (mps_doctor/data/mps_kernels.json's format): every ATen operator on mps
                            whose root name the emulated release's row lacks (neither an MPS nor a composite kernel) is
                            missing, as EMULATED_MPS_MISSING_OP is, named by its overload (aten::lerp_.Scalar)
  EMULATED_MPS_LOG          file that receives the counters (synchronizations, host reads, clock reads) at exit
"""
import atexit
import functools
import json
import os
import sys
import time
import warnings

RELEASE = os.environ.get("EMULATED_MPS", "")

# The first release whose macOS arm64 wheel has each name, read from torch/backends/mps/__init__.py and
# torch/mps/__init__.py of torch-{1.12.1,1.13.1,2.0.1,2.1.2,2.2.2,2.3.1,2.4.1,2.5.1,2.6.0,2.7.1,2.8.0,2.9.1,2.15.0}
# -cp310/cp312-macosx_*_arm64.whl (PyPI). 1.12.1 and 1.13.1 have no torch/mps package at all.
API_SINCE = {
    "backends.is_built": (1, 12), "backends.is_available": (1, 12),
    "backends.is_macos13_or_newer": (2, 0),  # 2.0.1: no argument; 2.1.2 and later: (minor=0)
    "backends.is_macos_or_newer": (2, 3),
    "backends.get_name": (2, 9), "backends.get_core_count": (2, 9),
    "mps": (2, 0),  # synchronize, rng state, manual_seed, seed, empty_cache, memory fraction, allocated memory
    "mps.device_count": (2, 4),
    "mps.recommended_max_memory": (2, 5), "mps.is_available": (2, 5),
    "mps.compile_shader": (2, 7),  # 2.6.0 has only _compile_shader
    "mps.load_metallib": (2, 13), "mps._host_alias_storage": (2, 13),  # in 2.13.0 and 2.15.0, not in 2.9.1
}
MPS_FUNCTIONS = ("synchronize", "get_rng_state", "set_rng_state", "manual_seed", "seed", "empty_cache",
                 "set_per_process_memory_fraction", "current_allocated_memory", "driver_allocated_memory")
# MPSFallback.mm strings in libtorch_cpu.dylib: the warning (1.12.1 to 2.15.0) and the error without the flag
# (the 2.9.1 and 2.15.0 wording; 1.13.1 to 2.5.1 point to issue 77764 instead).
FALLBACK_WARNING = ("The operator '%s' is not currently supported on the MPS backend and will fall back to run on the "
                    "CPU. This may have performance implications.")
MISSING_ERROR_OLD = ("The operator '%s' is not currently implemented for the MPS device. If you want this op to be "
                     "added in priority during the prototype phase of this feature, please comment on "
                     "https://github.com/pytorch/pytorch/issues/77764. As a temporary fix, you can set the "
                     "environment variable `PYTORCH_ENABLE_MPS_FALLBACK=1` to use the CPU as a fallback for this op. "
                     "WARNING: this will be slower than running natively on MPS.")
MISSING_ERROR_NEW = ("The operator '%s' is not currently implemented for the MPS device. If you want this op to be "
                     "considered for addition please comment on https://github.com/pytorch/pytorch/issues/141287 and "
                     "mention use-case, that resulted in missing op as well as commit hash %s. As a temporary fix, you "
                     "can set the environment variable `PYTORCH_ENABLE_MPS_FALLBACK=1` to use the CPU as a fallback "
                     "for this op. WARNING: this will be slower than running natively on MPS.")
# Dtypes MPS refuses, by release and macOS: float64 in every release (Tensor.to and OperationUtils.mm getMPSDataType);
# bfloat16 before 2.3 (EmptyTensor.cpp:46, pytorch/pytorch#78168), and on macOS below 14 in 2.3-2.8 (EmptyTensor.cpp:46
# of the 2.3.0-2.9.0 wheels, checks/mps.py).
FLOAT64_ERROR = ("Cannot convert a MPS Tensor to float64 dtype as the MPS framework doesn't support float64. Please use "
                 "float32 instead.")
BF16_UNSUPPORTED = "BFloat16 is not supported on MPS"
BF16_MACOS14 = "MPS BFloat16 is only supported on MacOS 14 or newer"
# MPSAllocator.mm (1.13.1 to 2.15.0); the default high watermark ratio 1.7 is MPSAllocator.h's.
OOM_ERROR = ("MPS backend out of memory (MPS allocated: %s, other allocations: %s, max allowed: %s). Tried to "
             "allocate %s on private pool. Use PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 to disable upper limit for memory "
             "allocations (may cause system failure).")
DEFAULT_HIGH_WATERMARK = 1.7


def release_tuple(text):
    """(major, minor) of a release string such as 2.5.1."""
    parts = text.split("+")[0].split(".")
    return int(parts[0]), int(parts[1])


def has(name):
    """Whether the emulated release has the API NAME (a key of API_SINCE)."""
    return release_tuple(RELEASE) >= API_SINCE[name]


class Counters(object):
    """What the emulated GPU saw: queued work, synchronizations, host reads, and clock reads with work pending."""

    def __init__(self):
        self.ops = 0
        self.pending = False
        self.synchronize_calls = 0
        self.host_reads = 0
        self.clock_reads = 0
        self.unsynced_clock_reads = 0
        self.fallbacks = 0
        self.allocated = 0
        self.peak = 0

    def queue(self):
        self.ops += 1
        self.pending = True

    def drain(self, by_host_read):
        if by_host_read:
            self.host_reads += 1
        else:
            self.synchronize_calls += 1
        self.pending = False

    def clock(self):
        self.clock_reads += 1
        if self.pending:
            self.unsynced_clock_reads += 1

    def write(self):
        path = os.environ.get("EMULATED_MPS_LOG")
        if path:
            with open(path, "w") as handle:
                json.dump(dict(self.__dict__), handle)


COUNTERS = Counters()


class MacFacade(object):
    """sys.platform, platform, sysctlbyname and the torch distribution as a Mac reports them; off while torch loads."""

    def __init__(self):
        import ctypes
        import ctypes.util
        import importlib.metadata
        import platform
        import sysconfig

        sysconfig.get_config_vars()  # cached now: its _sysconfigdata module name is derived from sys.platform

        self.platform, self.ctypes, self.metadata = platform, ctypes, importlib.metadata
        self.real = {"sys.platform": sys.platform, "machine": platform.machine, "system": platform.system,
                     "release": platform.release, "uname": platform.uname, "mac_ver": platform.mac_ver,
                     "processor": platform.processor, "find_library": ctypes.util.find_library,
                     "CDLL": ctypes.CDLL, "version": importlib.metadata.version}
        self.macos = os.environ.get("EMULATED_MPS_MACOS", "15.1")
        self.kernel = os.environ.get("EMULATED_MPS_KERNEL", "24.1.0")

    def apply(self):
        platform, real = self.platform, self.real
        uname = real["uname"]()
        mac_uname = platform.uname_result("Darwin", uname.node, self.kernel,
                                          "Darwin Kernel Version %s: emulated; root:xnu/RELEASE_ARM64_T6020" % self.kernel,
                                          "arm64")
        sys.platform = "darwin"
        platform.machine = lambda: "arm64"
        platform.system = lambda: "Darwin"
        platform.release = lambda: self.kernel
        platform.uname = lambda: mac_uname
        platform.processor = lambda: "arm"
        platform.mac_ver = lambda release="", versioninfo=("", "", ""), machine="": (self.macos, ("", "", ""), "arm64")
        self.ctypes.util.find_library = lambda name: "/usr/lib/libSystem.B.dylib" if name == "c" else real["find_library"](name)
        self.ctypes.CDLL = lambda name, *args, **kwargs: (
            FakeLibSystem() if name == "/usr/lib/libSystem.B.dylib" else real["CDLL"](name, *args, **kwargs))
        self.metadata.version = lambda name: RELEASE if name.lower() == "torch" else real["version"](name)

    def restore(self):
        real = self.real
        sys.platform = real["sys.platform"]
        for name in ("machine", "system", "release", "uname", "mac_ver", "processor"):
            setattr(self.platform, name, real[name])
        self.ctypes.util.find_library = real["find_library"]
        self.ctypes.CDLL = real["CDLL"]
        self.metadata.version = real["version"]


class FakeLibSystem(object):
    """libSystem's sysctlbyname for a native arm64 process: sysctl.proc_translated is 0 (not under Rosetta)."""

    def sysctlbyname(self, name, value_ref, size_ref, new_value, new_size):
        if name != b"sysctl.proc_translated":
            return -1
        value_ref._obj.value = 0
        return 0


class TorchLoader(object):
    """Wraps torch's own loader: the real platform while torch's package executes, then the emulation."""

    def __init__(self, loader, facade):
        self.loader, self.facade = loader, facade

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        self.facade.restore()
        try:
            self.loader.exec_module(module)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                install_torch(module)
        finally:
            self.facade.apply()


class TorchFinder(object):
    """A meta path finder that hands torch's spec to TorchLoader."""

    def __init__(self, facade):
        self.facade = facade

    def find_spec(self, name, path=None, target=None):
        if name != "torch":
            return None
        import importlib.machinery

        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is not None and spec.loader is not None:
            spec.loader = TorchLoader(spec.loader, self.facade)
        return spec


def install():
    """Present a Mac from now on, and emulate MPS in torch when it is imported."""
    facade = MacFacade()
    facade.apply()
    real_clock = time.perf_counter

    def perf_counter():
        COUNTERS.clock()
        return real_clock()

    time.perf_counter = perf_counter
    sys.meta_path.insert(0, TorchFinder(facade))
    atexit.register(COUNTERS.write)


def install_torch(torch):
    """Give the imported torch an emulated MPS device and the MPS API of RELEASE."""
    from torch.overrides import TorchFunctionMode

    available = os.environ.get("EMULATED_MPS_AVAILABLE", "1") != "0"
    version = torch.torch_version.TorchVersion(RELEASE)
    torch.__version__ = version
    torch.version.__version__ = version
    install_backends(torch, available)
    install_mps_module(torch, available)
    if not available:
        return
    emulator = Emulator(torch)

    class EntryPoints(TorchFunctionMode):
        """Routes Tensor.to and every torch call with device="mps" (the factories) through the emulator."""

        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            if func is torch.Tensor.to:
                return emulator.to(args[0], args[1:], kwargs)
            if emulator.is_mps(kwargs.get("device")):
                return emulator.factory(func, args, kwargs)
            return func(*args, **kwargs)

    emulator.tensor_class = make_tensor_class(torch, emulator)
    module_to = torch.nn.Module.to

    def to(module, *args, **kwargs):
        """nn.Module.to: onto mps the parameters become mps tensors (new Parameter objects here; a Mac keeps the
        objects and replaces their data)."""
        if not (emulator.names_mps(args) or emulator.names_mps(kwargs.values())):
            return module_to(module, *args, **kwargs)
        overwrite = torch.__future__.get_overwrite_module_params_on_conversion()
        torch.__future__.set_overwrite_module_params_on_conversion(True)
        try:
            return module_to(module, *args, **kwargs)
        finally:
            torch.__future__.set_overwrite_module_params_on_conversion(overwrite)

    torch.nn.Module.to = to
    EntryPoints().__enter__()
    kernels = native_operators(os.environ.get("EMULATED_MPS_KERNELS"))
    if kernels is not None:
        make_kernel_mode(torch, emulator, kernels).__enter__()


def native_operators(path):
    """The root names of the ATen operators that run on MPS in the emulated release, from the kernel table at PATH
    (its row's mps and composite lists); None without a table."""
    if not path:
        return None
    with open(path) as handle:
        rows = json.load(handle)["releases"]
    row = rows.get("%d.%d" % release_tuple(RELEASE)) or {}
    return frozenset(row.get("mps") or ()) | frozenset(row.get("composite") or ())


def root_name(schema_name):
    """'aten::add_' -> 'add', as the kernel table names operators (the stem of the per-operator headers)."""
    name = schema_name.split("::", 1)[-1]
    if name.startswith("__") and name.endswith("__"):
        inner = name[2:-2]
        return inner[1:] if inner[:1] == "i" and inner[1:] in ("add", "sub", "mul", "div", "and", "or", "xor",
                                                               "lshift", "rshift", "mod", "pow") else inner
    return name[:-1] if name.endswith("_") else name


def make_kernel_mode(torch, emulator, native):
    """A dispatch mode under every other: an ATen operator on an mps tensor without a kernel in NATIVE is missing
    (Emulator.fall_back), as MPS's boxed fallback is registered for every operator without an MPS kernel."""
    from torch.utils._python_dispatch import TorchDispatchMode

    class EmulatedKernels(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            schema = func._schema
            if schema.name in ("aten::to", "aten::_to_copy") and (emulator.is_mps(kwargs.get("device")) or any(
                    emulator.is_mps(value) for value in args[1:])):
                # Tensor.to("mps") called inside another mode's handler, where torch function (EntryPoints) is off.
                args = tuple(emulator.cpu if emulator.is_mps(value) else value for value in args)
                out = func(*args, **dict(kwargs, **({"device": emulator.cpu} if "device" in kwargs else {})))
                emulator.refuse(out.dtype)
                COUNTERS.queue()
                return emulator.place(out, fresh=True)
            if schema.name.startswith("aten::") and root_name(schema.name) not in native and any(
                    emulator.on_mps(value) for value in flat(args) + flat(list(kwargs.values()))):
                emulator.fall_back("%s.%s" % (schema.name[len("aten::"):], schema.overload_name or "default"))
            return func(*args, **kwargs)

    return EmulatedKernels()


def flat(values):
    """VALUES with the items of lists and tuples in them, one level down."""
    out = []
    for value in values:
        out.extend(value if isinstance(value, (list, tuple)) else [value])
    return out


def make_tensor_class(torch, emulator):
    """A CPU tensor that says it lives on mps:0; what torch computes from it stays on mps."""

    cls_name = "EmulatedMpsTensor"

    class EmulatedMpsTensor(torch.Tensor):
        @property
        def device(self):
            return emulator.device

        @property
        def is_mps(self):
            return True

        @property
        def is_cpu(self):
            return False

        @property
        def grad(self):
            """The gradient, which autograd computes as a plain tensor, on mps like its parameter."""
            value = torch._C.TensorBase.grad.__get__(self)
            return value if value is None or emulator.on_mps(value) else emulator.place(value, fresh=False)

        @grad.setter
        def grad(self, value):
            torch._C.TensorBase.grad.__set__(self, value)

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return emulator.call(super().__torch_function__, func, types, args, kwargs or {})

        def __repr__(self, **kwargs):
            return "tensor" + torch.Tensor.__repr__(self, **kwargs)[len(cls_name):]

    return EmulatedMpsTensor


class Emulator(object):
    """Runs torch calls on mps tensors on the CPU, with the queue, allocator and faults of a Mac's GPU."""

    # Calls that read an mps tensor back to the host: each waits for the queued GPU work.
    HOST_READS = ("item", "tolist", "numpy", "__float__", "__int__", "__bool__", "__index__", "__format__")
    # Calls that only describe a tensor: no GPU work.
    DESCRIPTIONS = ("__get__", "__repr__", "size", "dim", "numel", "element_size", "stride", "is_floating_point",
                    "is_complex", "is_contiguous", "data_ptr", "untyped_storage", "storage_offset", "__len__")

    # Calls that take tensors of both devices on a Mac: copies, and indexing with CPU indices (private helpers
    # such as _has_compatible_shallow_copy_type are not checked either).
    CROSS_DEVICE = ("copy_", "to", "cpu", "__getitem__", "__setitem__", "index_select", "index_put_", "index_put",
                    "set_", "new_tensor", "as_subclass", "__deepcopy__", "__reduce_ex__")

    def __init__(self, torch):
        self.torch = torch
        self.device = torch.device("mps", 0)
        self.cpu = torch.device("cpu")
        self.tensor_class = None
        self.missing_op = os.environ.get("EMULATED_MPS_MISSING_OP")
        self.wrong_op = os.environ.get("EMULATED_MPS_WRONG_OP")
        self.warned_fallback = False
        self.storages = {}
        ratio = os.environ.get("PYTORCH_MPS_HIGH_WATERMARK_RATIO")
        self.max_allowed = (float(ratio) if ratio else DEFAULT_HIGH_WATERMARK) * recommended_max_memory()

    def is_mps(self, value):
        """Whether VALUE is a device (string or torch.device) that means mps."""
        if isinstance(value, str):
            return value == "mps" or value.startswith("mps:")
        return isinstance(value, self.torch.device) and value.type == "mps"

    def names_mps(self, values):
        return any(self.is_mps(v) for v in values)

    def on_mps(self, value):
        return isinstance(value, self.tensor_class)

    def refuse(self, dtype):
        """Raise MPS's TypeError for DTYPE where the emulated release and macOS refuse it."""
        torch = self.torch
        if dtype in (torch.float64, torch.complex128):
            raise TypeError(FLOAT64_ERROR)
        if dtype == torch.bfloat16 and release_tuple(RELEASE) < (2, 3):
            raise TypeError(BF16_UNSUPPORTED)
        macos = tuple(int(part) for part in os.environ.get("EMULATED_MPS_MACOS", "15.1").split(".")[:2])
        if dtype == torch.bfloat16 and release_tuple(RELEASE) <= (2, 8) and macos < (14, 0):
            raise TypeError(BF16_MACOS14)

    def to(self, tensor, args, kwargs):
        """Tensor.to: onto mps is a copy that stays on mps; from mps to the CPU is a host read."""
        torch = self.torch
        parsed = {k: v for k, v in kwargs.items() if k != "copy"}
        device, dtype, non_blocking, memory_format = torch._C._nn._parse_to(*args, **parsed)
        if self.is_mps(device) or device is None and self.on_mps(tensor):
            self.refuse(dtype or tensor.dtype)
        if device is None or not (self.is_mps(device) or self.on_mps(tensor)):
            return torch.Tensor.to(tensor, *args, **kwargs)
        if self.is_mps(device) and self.on_mps(tensor):
            return torch.Tensor.to(tensor, dtype=dtype or tensor.dtype, non_blocking=non_blocking,
                                   copy=kwargs.get("copy", False), memory_format=memory_format or torch.preserve_format)
        with torch._C.DisableTorchFunctionSubclass():
            moved = torch.Tensor.to(tensor, device=self.cpu, dtype=dtype or tensor.dtype, non_blocking=non_blocking,
                                    copy=True, memory_format=memory_format or torch.preserve_format)
        if self.is_mps(device):
            return self.place(moved, fresh=True)
        COUNTERS.drain(by_host_read=True)
        return moved

    def factory(self, func, args, kwargs):
        """A call with device="mps" (torch.ones, torch.tensor, zeros_like, ...) made on the CPU."""
        out = func(*args, **dict(kwargs, device=self.cpu))
        if isinstance(out, self.torch.Tensor):
            self.refuse(out.dtype)
        COUNTERS.queue()
        return self.place(out, fresh=True) if isinstance(out, self.torch.Tensor) else out

    def call(self, default, func, types, args, kwargs):
        """A torch call with an mps tensor among its arguments."""
        name = getattr(func, "__name__", "")
        if name in self.DESCRIPTIONS:
            return default(func, types, args, kwargs)
        if name in self.HOST_READS:
            COUNTERS.drain(by_host_read=True)
            return default(func, types, args, kwargs)
        if name == "cpu":
            return self.to(args[0], ("cpu",), {})
        if name not in self.CROSS_DEVICE and not name.startswith("_"):
            self.check_same_device(name, args, kwargs)
        if name == self.missing_op:
            self.fall_back(name)
        COUNTERS.queue()
        out = default(func, types, args, kwargs)
        if name == self.wrong_op and isinstance(out, self.torch.Tensor) and out.is_floating_point():
            with self.torch.no_grad():
                out.add_(1.0)
        return self.account(out, args)

    def check_same_device(self, name, args, kwargs):
        """Mixing mps and CPU tensors fails as on a Mac; a 0-dim CPU tensor is a scalar and may mix."""
        torch = self.torch
        values = list(args) + list(kwargs.values())
        values += [v for a in values if isinstance(a, (list, tuple)) for v in a]
        if any(isinstance(v, torch.Tensor) and not self.on_mps(v) and v.dim() > 0 for v in values):
            raise RuntimeError("Expected all tensors to be on the same device, but found at least two devices, mps:0 "
                               "and cpu! (when checking argument for %s)" % name)

    def account(self, out, args):
        """Count the new storages among OUT on the emulated allocator."""
        inputs = set(self.storage_key(a) for a in args if isinstance(a, self.torch.Tensor))
        outputs = out if isinstance(out, (tuple, list)) else (out,)
        for tensor in outputs:
            if self.on_mps(tensor) and self.storage_key(tensor) not in inputs:
                self.track(tensor)
        return out

    def place(self, tensor, fresh):
        """TENSOR (a CPU tensor) as an mps tensor, its storage counted by the allocator."""
        moved = tensor.as_subclass(self.tensor_class)
        if fresh:
            self.track(moved)
        return moved

    def storage_key(self, tensor):
        with self.torch._C.DisableTorchFunctionSubclass():
            return tensor.untyped_storage().data_ptr()

    def track(self, tensor):
        """Count TENSOR's storage until its last mps tensor is gone, or raise the allocator's out-of-memory error."""
        import weakref

        key = self.storage_key(tensor)
        with self.torch._C.DisableTorchFunctionSubclass():
            size = tensor.untyped_storage().nbytes()
        if key not in self.storages:
            if self.max_allowed and COUNTERS.allocated + size > self.max_allowed:
                raise RuntimeError(OOM_ERROR % (format_size(COUNTERS.allocated), format_size(0),
                                                format_size(self.max_allowed), format_size(size)))
            COUNTERS.allocated += size
            COUNTERS.peak = max(COUNTERS.peak, COUNTERS.allocated)
        self.storages[key] = self.storages.get(key, 0) + 1
        weakref.finalize(tensor, self.release, key, size)

    def release(self, key, size):
        self.storages[key] -= 1
        if not self.storages[key]:
            del self.storages[key]
            COUNTERS.allocated -= size

    def fall_back(self, name):
        """The emulated MPS lacks NAME: run it on the CPU with a warning when the fallback flag is set, else raise."""
        op = "aten::" + name
        flag = os.environ.get("PYTORCH_ENABLE_MPS_FALLBACK", "0").strip()
        if flag.lstrip("-").isdigit() and int(flag) != 0:
            COUNTERS.fallbacks += 1
            COUNTERS.drain(by_host_read=True)
            # TORCH_WARN_ONCE: once per process, unless torch.set_warn_always(True) (c10/util/Exception.h).
            if not self.warned_fallback or self.torch.is_warn_always_enabled():
                self.warned_fallback = True
                warnings.warn(FALLBACK_WARNING % op, UserWarning, stacklevel=3)
            return
        if release_tuple(RELEASE) >= (2, 9):
            raise NotImplementedError(MISSING_ERROR_NEW % (op, self.torch.version.git_version))
        raise NotImplementedError(MISSING_ERROR_OLD % op)


def format_size(size):
    """Bytes as MPSAllocator's format_size writes them."""
    for limit, unit in ((1 << 30, "GB"), (1 << 20, "MB"), (1 << 10, "KB")):
        if size >= limit:
            return "%.2f %s" % (size / float(limit), unit)
    return "%d bytes" % size


def recommended_max_memory():
    return int(os.environ.get("EMULATED_MPS_MAX_MEMORY", str(22906503168)))


def install_backends(torch, available):
    """torch.backends.mps as RELEASE has it."""
    backends = torch.backends.mps
    surface = {
        "is_built": lambda: True,
        "is_available": functools.lru_cache()(lambda: available),
        "is_macos13_or_newer": (lambda: True) if release_tuple(RELEASE) < (2, 1) else (lambda minor=0: True),
        "is_macos_or_newer": lambda major, minor: True,
        "get_name": lambda: os.environ.get("EMULATED_MPS_CHIP", "Apple M2 Pro"),
        "get_core_count": lambda: int(os.environ.get("EMULATED_MPS_CORES", "19")),
    }
    for name, fn in surface.items():
        if has("backends." + name):
            setattr(backends, name, fn)
        elif hasattr(backends, name):
            delattr(backends, name)
    backends.__all__ = [name for name in surface if has("backends." + name)]


def install_mps_module(torch, available):
    """torch.mps as RELEASE has it; before 2.0 there is none (torch's own seeding then skips it)."""
    if not has("mps"):
        del torch.mps
        import torch.random as random

        def manual_seed(seed):
            return torch.default_generator.manual_seed(int(seed))

        random._manual_seed_impl = manual_seed
        return
    mps = torch.mps

    def synchronize():
        COUNTERS.drain(by_host_read=False)

    surface = {
        "synchronize": synchronize,
        "get_rng_state": lambda device="mps": torch.default_generator.get_state(),
        "set_rng_state": lambda new_state, device="mps": None,
        "manual_seed": lambda seed: None,
        "seed": lambda: None,
        "empty_cache": lambda: None,
        "set_per_process_memory_fraction": lambda fraction: None,
        "current_allocated_memory": lambda: COUNTERS.allocated,
        "driver_allocated_memory": lambda: COUNTERS.allocated,
        "device_count": lambda: int(available),
        "recommended_max_memory": recommended_max_memory,
        "is_available": lambda: available,
    }
    for name in ("compile_shader", "load_metallib", "_host_alias_storage"):
        if not has("mps." + name) and hasattr(mps, name):
            delattr(mps, name)
    for name, fn in surface.items():
        if name in MPS_FUNCTIONS or has("mps." + name):
            setattr(mps, name, fn)
        elif hasattr(mps, name):
            delattr(mps, name)
