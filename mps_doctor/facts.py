"""Typed, immutable facts about the host and the target interpreter, and their JSON form.

Only the probes create facts from a machine; everything downstream (checks, remedies, renderers) reads
them. `None` always means "unknown", never "no".
"""

import dataclasses
import math
import types
import typing
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Tuple

from mps_doctor.errors import ReportFormatError

Env = Mapping[str, str]


@dataclass(frozen=True)
class ErrorInfo:
    """An exception seen in the target interpreter."""

    type: str
    message: str
    traceback: str = ""


@dataclass(frozen=True)
class Interpreter:
    """The target Python, as it describes itself (stdlib only)."""

    version: Tuple[int, ...]
    implementation: Optional[str] = None
    executable: Optional[str] = None
    executable_realpath: Optional[str] = None
    prefix: Optional[str] = None
    base_prefix: Optional[str] = None
    machine: Optional[str] = None
    sys_platform: Optional[str] = None
    mac_ver: Optional[str] = None
    pointer_bits: Optional[int] = None
    proc_translated: Optional[int] = None
    pyvenv_cfg: Optional[Mapping[str, str]] = None
    conda_meta: bool = False
    conda_subdir: Optional[str] = None
    externally_managed: bool = False
    too_old: bool = False
    platform: Optional[str] = None
    libc: Optional[str] = None
    cpu_model: Optional[str] = None
    free_threaded: Optional[bool] = None


@dataclass(frozen=True)
class CudaDevice:
    """One visible CUDA device."""

    index: int
    name: str
    capability: Tuple[int, ...]
    total_memory: Optional[int] = None


@dataclass(frozen=True)
class Shadow:
    """A local `torch` file or folder that a plain `import torch` finds before the installed package."""

    path: str
    where: str  # "working directory" | "PYTHONPATH"


@dataclass(frozen=True)
class TorchInfo:
    """torch as the target interpreter sees it; `installed` False means no torch package was found."""

    installed: bool
    version: Optional[str] = None
    file: Optional[str] = None
    import_seconds: Optional[float] = None
    import_error: Optional[ErrorInfo] = None
    num_threads: Optional[int] = None
    mps_built: Optional[bool] = None
    mps_available: Optional[bool] = None
    mps_name: Optional[str] = None
    mps_core_count: Optional[int] = None
    mps_recommended_max_memory: Optional[int] = None
    cuda_version: Optional[str] = None
    cuda_available: Optional[bool] = None
    cuda_arch_list: Tuple[str, ...] = ()
    cuda_devices: Tuple[CudaDevice, ...] = ()
    packages: Mapping[str, Optional[str]] = dataclasses.field(default_factory=dict)
    warnings: Tuple[str, ...] = ()
    shadows: Tuple[Shadow, ...] = ()
    build: Mapping[str, str] = dataclasses.field(default_factory=dict)


@dataclass(frozen=True)
class Comparison:
    """A device result against its reference: max absolute error and the reference's magnitude."""

    name: str
    finite: bool
    max_abs_err: Optional[float]
    max_abs_ref: float


def within(comparison: Comparison, rtol: float) -> bool:
    """Whether COMPARISON is finite and its error is within RTOL of its reference's magnitude."""
    if not comparison.finite or comparison.max_abs_err is None:
        return False
    return comparison.max_abs_err <= rtol * max(comparison.max_abs_ref, 1e-12)


@dataclass(frozen=True)
class Parity:
    """Tensor operations known to have gone silently wrong on accelerators, compared with a CPU float64 reference."""

    device: str
    ops: Tuple[Comparison, ...] = ()
    error: Optional[ErrorInfo] = None
    fallback_warnings: Tuple[str, ...] = ()


@dataclass(frozen=True)
class Smoke:
    """A few real training steps of the MNIST network on the device."""

    device: str
    steps: int = 0
    batch: int = 0
    reference: Optional[str] = None
    loss_parity: Optional[Comparison] = None
    grad_parity: Tuple[Comparison, ...] = ()
    loss_before: Optional[float] = None
    loss_after: Optional[float] = None
    cold_step_ms: Optional[float] = None
    warm_step_ms: Optional[float] = None
    fallback_env: Optional[str] = None
    warnings: Tuple[str, ...] = ()
    fallback_warnings: Tuple[str, ...] = ()
    error: Optional[ErrorInfo] = None


FAILURE_KINDS = ("crash", "timeout", "no-answer", "bad-answer")


@dataclass(frozen=True)
class ProbeFailure:
    """The target interpreter stopped answering: it crashed, hung, or printed nothing we understand."""

    stage: str
    kind: str  # FAILURE_KINDS: "bad-answer" is a frame of the wrong shape
    returncode: Optional[int] = None
    signal: Optional[str] = None
    stderr_tail: str = ""
    timeout_seconds: Optional[float] = None


def stage_work(stage: str, device: str) -> str:
    """What the child does in STAGE (child/mpsd_probe.py run, child/mpsd_bench.py run) on DEVICE, said of a stage that
    was still running."""
    if stage == "interpreter":
        return "starting the target Python"
    if stage == "torch":
        return "importing torch"
    if stage.startswith("bench-"):  # a device's bench run before its first progress frame (child/mpsd_bench.py)
        return "setting up the network and data on %s" % device
    what = {"parity": "the parity operations", "smoke": "the smoke training step"}.get(stage, "the %s stage" % stage)
    return "running %s on %s" % (what, device)


# The devices a child's frame may name (child/mpsd_probe.py resolve_device): any other value is not shown.
FRAME_DEVICES = ("cpu", "mps", "cuda")


def frame_number(data: Mapping, key: str) -> Optional[int]:
    """DATA[KEY] when it is a non-negative integer (frames come from the target interpreter: untrusted)."""
    value = data.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 10 ** 9 else None


def step_work(stage: Any, data: Any) -> Optional[str]:
    """What the child is doing by one of its `progress` frames (STAGE 'bench' or 'smoke', DATA untrusted), in the
    words of stage_work: 'timing window 3 of 5 on cpu'; None for a frame that says nothing recognizable. The one
    reading of these frames: the progress line shows it (render/progress.py), and a bench stopped by --timeout or a
    crash reports it (bench.running)."""
    if not isinstance(data, Mapping):
        return None
    device = data.get("device") if data.get("device") in FRAME_DEVICES else None
    phase = data.get("phase")
    if stage == "bench" and phase == "data":
        return "loading the MNIST data"
    if device is None:
        return None
    if stage == "smoke":
        step, last, steps = (frame_number(data, key) for key in ("step", "last", "steps"))
        if phase == "reference-step":
            return "training one step on %s against the CPU reference" % device
        if phase == "steps" and step and steps:
            span = "steps %d-%d" % (step, last) if last and last > step else "step %d" % step
            return "training %s of %d on %s" % (span, steps, device)
        return None
    if stage != "bench":
        return None
    if phase == "cold-step":
        return "running the cold first step on %s" % device
    if phase == "warm-up" and frame_number(data, "steps"):
        return "running %d warm-up steps on %s" % (frame_number(data, "steps"), device)
    window, windows = frame_number(data, "window"), frame_number(data, "windows")
    if phase == "window" and window and windows:
        return "timing window %d of %d on %s" % (window, windows, device)
    epoch, epochs, step, steps = (frame_number(data, key) for key in ("epoch", "epochs", "step", "steps"))
    if phase in ("epoch", None) and epoch and epochs and step is not None and steps:  # no phase: an older child
        return "training epoch %d of %d on %s (step %d of %d)" % (epoch, epochs, device, step + 1, steps)
    return None


def describe_failure(failure: ProbeFailure) -> str:
    """'took longer than the --timeout of 60 s', 'crashed with SIGSEGV' or 'exited with code 1'."""
    if failure.kind == "timeout":
        return "took longer than the --timeout of %g s" % (failure.timeout_seconds or 0)
    if failure.kind == "bad-answer":
        return "answered the probe with malformed data"
    if failure.signal:
        return "crashed with %s%s" % (failure.signal, " (Illegal instruction)" if failure.signal == "SIGILL" else "")
    return "exited with code %s" % failure.returncode


def longer_timeout(allowed: float, most: float) -> float:
    """A --timeout worth trying after ALLOWED seconds ran out: double, at least a minute more, at most MOST."""
    return min(most, max(2 * allowed, allowed + 60))


@dataclass(frozen=True)
class Target:
    """Everything the child probe reported, stage by stage; a stage that never answered is None."""

    python: str
    device: str
    interpreter: Optional[Interpreter] = None
    torch: Optional[TorchInfo] = None
    parity: Optional[Parity] = None
    smoke: Optional[Smoke] = None
    failure: Optional[ProbeFailure] = None
    stages_requested: Tuple[str, ...] = ()
    chosen_because: Optional[str] = None  # "--python", or why the default target was this interpreter


@dataclass(frozen=True)
class NvidiaSmi:
    """`nvidia-smi` as the host sees it: the driver version and the CUDA version it supports."""

    found: bool
    driver_version: Optional[str] = None
    cuda_version: Optional[str] = None
    gpus: Tuple[str, ...] = ()
    error: Optional[str] = None


@dataclass(frozen=True)
class NvidiaHardware:
    """NVIDIA hardware as the Linux kernel shows it, with or without a driver: device files under /dev (the driver's
    nvidia*, WSL 2's dxg, Jetson's nvhost* and nvgpu) and the addresses of the PCI devices of vendor 0x10de."""

    device_files: Optional[Tuple[str, ...]] = None  # None: /dev could not be listed
    pci_devices: Optional[Tuple[str, ...]] = None  # None: no PCI bus visible, or a vendor file unreadable


@dataclass(frozen=True)
class Host:
    """Facts about the machine, read in the doctor process (platform, sysctl, sw_vers, psutil, distro)."""

    system: str
    release: Optional[str] = None
    doctor_machine: Optional[str] = None
    macos_version: Optional[str] = None
    macos_build: Optional[str] = None
    hw_arm64: Optional[bool] = None
    vmm_present: Optional[bool] = None
    cpu_brand: Optional[str] = None
    memory_bytes: Optional[int] = None
    linux_distro: Optional[Mapping[str, str]] = None
    brew_prefixes: Tuple[str, ...] = ()
    nvidia_smi: Optional[NvidiaSmi] = None
    nvidia_hardware: Optional[NvidiaHardware] = None
    tools: Mapping[str, str] = dataclasses.field(default_factory=dict)
    env: Env = dataclasses.field(default_factory=dict)
    home: Optional[str] = None
    user: Optional[str] = None


@dataclass(frozen=True)
class Facts:
    """All facts of one run: what the checks are a pure function of."""

    host: Host
    target: Target


def version_numbers(value: Tuple[int, ...]) -> bool:
    return len(value) >= 2 and all(part >= 0 for part in value)


def absolute_path(value: str) -> bool:
    # A redacted report writes the home folder as ~ (render/redact.py); a shell expands ~/ at the start of a word, and
    # no word starting with it is a keyword, a builtin or an option.
    return value == "" or value.startswith("/") or value == "~" or value.startswith("~/")


def seconds(value: float) -> bool:
    return math.isfinite(value) and value >= 0


ABSOLUTE = (absolute_path, "expected an absolute path")
# Shapes beyond the types that the checks rely on; a value outside them is bad input, named by its path. The probe
# records interpreter paths absolute (validate_python, sys.executable, sys.prefix); the fix plan runs them as
# commands and passes them as arguments, where a relative one could be an assignment (`PATH=.`), a shell keyword or
# builtin (`exec`), or an option (`-rf`) of the command it is given to.
CONSTRAINTS = {
    ("Interpreter", "version"): (version_numbers, "expected a version such as [3, 12, 7]"),
    ("CudaDevice", "capability"): (version_numbers, "expected a compute capability such as [9, 0]"),
    ("Target", "python"): ABSOLUTE,
    ("Interpreter", "executable"): ABSOLUTE,
    ("Interpreter", "executable_realpath"): ABSOLUTE,
    ("Interpreter", "prefix"): ABSOLUTE,
    ("Interpreter", "base_prefix"): ABSOLUTE,
    ("ProbeFailure", "timeout_seconds"): (seconds, "expected a number of seconds"),
    ("ProbeFailure", "kind"): (lambda kind: kind in FAILURE_KINDS, "expected one of %s" % ", ".join(FAILURE_KINDS)),
}


def to_jsonable(value: Any) -> Any:
    """Facts (or any part of them) as plain JSON types."""
    if dataclasses.is_dataclass(value):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [to_jsonable(v) for v in value]
    return value


def from_jsonable(cls: Any, data: Any, path: str = "facts") -> Any:
    """Rebuild CLS from its JSON form; raise ReportFormatError naming the first bad path."""
    origin = typing.get_origin(cls) if hasattr(typing, "get_origin") else getattr(cls, "__origin__", None)
    args = getattr(cls, "__args__", ()) or ()
    if cls is Any:
        return data
    if origin is typing.Union:
        if data is None and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        return from_jsonable(inner[0], data, path)
    if dataclasses.is_dataclass(cls):
        if not isinstance(data, dict):
            raise ReportFormatError("%s: expected an object" % path)
        hints = typing.get_type_hints(cls)
        kwargs = {}
        for field in dataclasses.fields(cls):
            if field.name in data:
                kwargs[field.name] = from_jsonable(hints[field.name], data[field.name], path + "." + field.name)
                rule = CONSTRAINTS.get((cls.__name__, field.name))
                if rule is not None and kwargs[field.name] is not None and not rule[0](kwargs[field.name]):
                    raise ReportFormatError("%s.%s: %s" % (path, field.name, rule[1]))
            elif field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
                raise ReportFormatError("%s: missing field %r" % (path, field.name))
        return cls(**kwargs)
    if origin in (tuple, Tuple):
        if not isinstance(data, list):
            raise ReportFormatError("%s: expected a list" % path)
        item = args[0] if args else Any
        return tuple(from_jsonable(item, v, "%s[%d]" % (path, i)) for i, v in enumerate(data))
    if origin in (dict, Mapping) or origin is getattr(typing, "Mapping", None) or _is_mapping_origin(origin):
        if not isinstance(data, dict):
            raise ReportFormatError("%s: expected an object" % path)
        value_type = args[1] if len(args) > 1 else Any
        return types.MappingProxyType({str(k): from_jsonable(value_type, v, path + "." + str(k)) for k, v in data.items()})
    if cls is float:
        if isinstance(data, bool) or not isinstance(data, (int, float)):
            raise ReportFormatError("%s: expected a number" % path)
        try:
            return float(data)
        except OverflowError:
            raise ReportFormatError("%s: %d digits is too large for a number" % (path, len(str(abs(data)))))
    if cls in (int, str, bool):
        if not isinstance(data, cls) or (cls is int and isinstance(data, bool)):
            raise ReportFormatError("%s: expected %s" % (path, cls.__name__))
        return data
    raise ReportFormatError("%s: unsupported type %r" % (path, cls))


def _is_mapping_origin(origin: Any) -> bool:
    import collections.abc

    return origin is collections.abc.Mapping
