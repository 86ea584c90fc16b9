"""Typed facts of a `model` run: what the child (child/mpsd_model.py) reported for each stage, read from its frames.

Frames come from the target interpreter, which runs the user's code: each stage's data is checked field by field
(facts.from_jsonable); a frame of the wrong shape becomes a ProbeFailure of kind `bad-answer`, never a crash.
`None` means unknown (or not measured), never "no".
"""

import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Tuple

from mps_doctor.facts import Comparison, ErrorInfo, ProbeFailure, Target
from mps_doctor.mps_ops import operator_name


@dataclass(frozen=True)
class InputInfo:
    shape: Tuple[int, ...]
    dtype: str


@dataclass(frozen=True)
class Loaded:
    """The TARGET as its factory returned it (model-load), or why it could not be loaded (`error`, `where`)."""

    error: Optional[ErrorInfo] = None
    where: Optional[str] = None  # import | factory | result | loss
    class_name: Optional[str] = None
    module: Optional[str] = None
    parameters: Optional[int] = None
    parameter_bytes: Optional[int] = None
    parameter_dtypes: Mapping[str, int] = field(default_factory=dict)
    buffer_dtypes: Tuple[str, ...] = ()
    batch: Optional[int] = None
    batch_argument: bool = False
    loss: Optional[str] = None  # given | default
    inputs: Tuple[InputInfo, ...] = ()
    trace_available: bool = False


@dataclass(frozen=True)
class Op:
    """One operator overload that the step dispatched: 'aten::add_.Tensor', how often, in which phases, with which
    dtypes and on which devices."""

    name: str
    count: int = 0
    phases: Tuple[str, ...] = ()
    dtypes: Tuple[str, ...] = ()
    self_dtypes: Tuple[str, ...] = ()  # of its first tensor argument (the reduced tensor of a reduction)
    devices: Tuple[str, ...] = ()

    @property
    def namespace(self) -> str:
        return self.name.split("::", 1)[0] if "::" in self.name else ""

    @property
    def base(self) -> str:
        return base_name(self.name)


@dataclass(frozen=True)
class Trace:
    """The operators of one training step on the CPU (model-trace)."""

    device: str = "cpu"
    available: bool = False
    ops: Tuple[Op, ...] = ()
    loss: Optional[float] = None
    seconds: Optional[float] = None
    error: Optional[ErrorInfo] = None
    op: Optional[str] = None
    phase: Optional[str] = None


@dataclass(frozen=True)
class Refusal:
    """An operator that raised MPS's missing-kernel NotImplementedError (the fallback off)."""

    op: str
    type: str
    message: str


@dataclass(frozen=True)
class Observed:
    """The step on the device (model-observe): what fell back, what was refused, where it failed."""

    device: str
    fallback_env: Optional[str] = None
    traced: bool = False
    ops: Optional[Tuple[Op, ...]] = None
    loss: Optional[float] = None
    error: Optional[ErrorInfo] = None
    where: Optional[str] = None
    op: Optional[str] = None
    phase: Optional[str] = None
    warnings: Tuple[str, ...] = ()
    fallback_warnings: Tuple[str, ...] = ()
    refused: Tuple[Refusal, ...] = ()

    @property
    def fallback_ops(self) -> Tuple[str, ...]:
        """The operators the fallback warnings name, in order, each once."""
        found = []
        for text in self.fallback_warnings:
            match = FALLBACK_OP.search(text)
            if match and match.group(1) not in found:
                found.append(match.group(1))
        return tuple(found)


# MPSFallback.mm's warning: "The operator 'aten::isin.Tensor_Tensor_out' is not currently supported on the MPS backend
# and will fall back to run on the CPU." (torch 1.12.1 to 2.15.0 wheels).
FALLBACK_OP = re.compile(r"operator '([A-Za-z0-9_:.]{1,200})'")


@dataclass(frozen=True)
class MemoryPoint:
    """The peak of one step at BATCH, and the peak up to the end of its backward (what grows with the batch: the
    optimizer step's temporaries do not)."""

    batch: int
    peak_bytes: int
    backward_peak_bytes: Optional[int] = None
    sampled: bool = True


@dataclass(frozen=True)
class Memory:
    """Peak allocator bytes of one step at one or two batches, and the device's limit (model-memory)."""

    device: str
    points: Tuple[MemoryPoint, ...] = ()
    limit_bytes: Optional[int] = None
    limit_source: Optional[str] = None
    driver_allocated_bytes: Optional[int] = None
    high_watermark_ratio: Optional[str] = None
    error: Optional[ErrorInfo] = None
    unavailable: Optional[str] = None


@dataclass(frozen=True)
class Timing:
    cold_ms: float
    window_ms: Tuple[float, ...]
    steps_per_window: int = 1


@dataclass(frozen=True)
class ScanPoint:
    batch: int
    device_ms: Optional[float] = None
    cpu_ms: Optional[float] = None
    error: Optional[str] = None


@dataclass(frozen=True)
class Speed:
    """Step times on the device and the CPU at the batch, and the batch scan (model-speed)."""

    device: str
    batch: Optional[int] = None
    runs: Mapping[str, Timing] = field(default_factory=dict)
    scan: Tuple[ScanPoint, ...] = ()
    scan_complete: bool = False
    tf32: Optional[Mapping[str, Any]] = None
    error: Optional[ErrorInfo] = None


@dataclass(frozen=True)
class ModelParity:
    """Loss and gradients of one step on the device against the CPU (model-parity); for a half-precision model, also
    the CPU's own error in that dtype (the baseline)."""

    device: str
    reference: Optional[str] = None
    dtype: Optional[str] = None  # float16 or bfloat16: the model's half dtype, against a float32 reference
    loss: Optional[Comparison] = None
    grads: Tuple[Comparison, ...] = ()
    baseline_loss: Optional[Comparison] = None  # the CPU in the model's half dtype against the same reference
    baseline_grads: Tuple[Comparison, ...] = ()
    error: Optional[ErrorInfo] = None


@dataclass(frozen=True)
class ModelFacts:
    """Everything a `model` run learned: the target (interpreter and torch, as `check` reads them), the device the
    child chose, each model stage (None: not run), the observed step without the fallback when it was run again so,
    and how the child ended (`failure`: the stage a crash or --timeout stopped)."""

    target: Target
    device: str
    loaded: Optional[Loaded] = None
    trace: Optional[Trace] = None
    observed: Optional[Observed] = None
    observed_without_fallback: Optional[Observed] = None
    memory: Optional[Memory] = None
    speed: Optional[Speed] = None
    parity: Optional[ModelParity] = None
    failure: Optional[ProbeFailure] = None


def base_name(name: str) -> str:
    """The ATen root name of an overload, the stem of its per-operator headers: 'aten::add_.Tensor' -> 'add'
    (mps_ops.operator_name, the kernel table's own reading)."""
    return operator_name(name) or name
