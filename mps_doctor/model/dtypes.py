"""Dtypes the device refuses or gates, per torch release and macOS: each rule with its source, judged on the dtypes
that the traced step's operators saw (and the model's parameters and inputs)."""

from dataclasses import dataclass
from typing import Iterable, Optional, Sequence, Tuple

from mps_doctor.known_errors import load_catalogue
from mps_doctor.model.facts import Loaded, Op
from mps_doctor.versions import ReleaseTable, at_least, version_tuple

# Tensor.to and MPS's dtype table (OperationUtils.mm getMPSDataType) refuse float64 in every release, 1.12 to 2.15;
# complex128 is two float64s.
FLOAT64_MESSAGE = ("TypeError: Cannot convert a MPS Tensor to float64 dtype as the MPS framework doesn't support float64. "
                   "Please use float32 instead.")
FLOAT64_DTYPES = ("float64", "complex128")
# Before torch 2.3 MPS had no bfloat16 (EmptyTensor.cpp:46 as quoted in pytorch/pytorch#78168, and
# getMPSDataType's default case: pytorch/pytorch#104191).
BF16_BEFORE = (2, 3)
BF16_MESSAGE = "TypeError: BFloat16 is not supported on MPS"
BF16_SOURCE = "https://github.com/pytorch/pytorch/issues/78168"
# macOS 13.3 added int64 to MPS reductions, cumsum, sort and argsort; torch dropped its int32 casts there from 2.1
# (pytorch/pytorch#95817, merged 2023-03-02, after release/2.0 was cut); before, they cast to int32 or refuse
# ("MPS does not support min/max ops with int64 input", pytorch/pytorch#94515).
INT64_REDUCTIONS = ("cumsum", "cumprod", "sort", "argsort", "min", "max", "amin", "amax", "aminmax", "argmin",
                    "argmax", "sum", "prod", "mean", "nansum", "topk")
INT64_MACOS, INT64_FROM = "13.3", (2, 1)
INT64_SOURCE = "https://github.com/pytorch/pytorch/pull/95817"
# scatter_reduce amin/amax on int64 needs Metal's 64-bit atomics, macOS 15 (ScatterGather.mm: "scatter_reduce(amin/amax)
# on int64 requires macOS 15 or newer"; pytorch/pytorch#184028, merged before release/2.13 was cut); 2.6 to 2.12 refuse
# min/max on int64 on every macOS (pytorch/pytorch#141948). The message is in the macOS wheels' binaries of 2.13 and
# 2.14 only; 2.15's kernel falls back instead of refusing (read from the wheels: known_errors.json,
# mps.op-needs-macos15, which names them).
SCATTER_MACOS15_FROM, SCATTER_MACOS15_UNTIL, SCATTER_INT64_FROM = (2, 13), (2, 14), (2, 6)
# torch.cuda.is_bf16_supported(): native bfloat16 from compute capability 8.0 (Ampere) (torch/cuda/__init__.py).
CUDA_BF16_CAPABILITY = (8, 0)


@dataclass(frozen=True)
class DtypeFinding:
    """One rule's judgement: `fail` (the device refuses it), `warn` (it may refuse, or computes it otherwise), `pass`."""

    rule: str
    status: str
    summary: str
    ops: Tuple[str, ...] = ()
    message: str = ""
    source: str = ""


def ops_with(ops: Iterable[Op], dtypes: Sequence[str], bases: Optional[Sequence[str]] = None,
             first_argument: bool = False) -> Tuple[str, ...]:
    """The overloads among OPS that saw one of DTYPES (as their first tensor argument's with FIRST_ARGUMENT), of the
    base names BASES when given."""
    return tuple(op.name for op in ops if (bases is None or op.base in bases) and op.namespace == "aten" and
                 set(op.self_dtypes if first_argument else op.dtypes) & set(dtypes))


def model_dtypes(loaded: Optional[Loaded]) -> Tuple[str, ...]:
    """The dtypes of the model's parameters, buffers and example inputs."""
    if loaded is None:
        return ()
    return tuple(loaded.parameter_dtypes) + tuple(loaded.buffer_dtypes) + tuple(i.dtype for i in loaded.inputs)


def named(ops: Tuple[str, ...], limit: int = 4) -> str:
    """'aten::a, aten::b and 3 more'."""
    shown = ", ".join(ops[:limit])
    return shown + (" and %d more" % (len(ops) - limit) if len(ops) > limit else "")


def mps_findings(ops: Tuple[Op, ...], loaded: Optional[Loaded], torch: Optional[Tuple[int, ...]],
                 macos: Optional[str], releases: ReleaseTable) -> Tuple[DtypeFinding, ...]:
    """The MPS rules for TORCH (major, minor; None unknown) on MACOS (None: not a Mac, judged as any macOS)."""
    found = []
    own = model_dtypes(loaded)
    wide = ops_with(ops, FLOAT64_DTYPES)
    if wide or set(own) & set(FLOAT64_DTYPES):
        found.append(DtypeFinding("float64", "fail", "float64 tensors%s: MPS has no float64 in any release" % (
            " in " + named(wide) if wide else " in the model or its inputs"), wide, FLOAT64_MESSAGE,
            "OperationUtils.mm getMPSDataType (torch 1.12-2.15)"))
    bf16 = ops_with(ops, ("bfloat16",))
    complex_ops = ops_with(ops, ("complex64", "complex32"))
    fft = tuple(op.name for op in ops if op.namespace == "aten" and op.base.startswith("_fft_"))
    bf16_used = bool(bf16) or "bfloat16" in own
    gated = tuple(version_tuple(v) for v in releases.features_gated)
    if bf16_used and torch is not None and torch < BF16_BEFORE:
        found.append(DtypeFinding("bfloat16", "fail", "bfloat16%s: torch %d.%d has no bfloat16 on MPS (from 2.3, on "
                                  "macOS 14)" % ((" in " + named(bf16)) if bf16 else "", torch[0], torch[1]), bf16,
                                  BF16_MESSAGE, BF16_SOURCE))
    elif torch is not None and len(gated) == 2 and gated[0] <= torch <= gated[1] and (bf16_used or complex_ops or fft):
        needs = releases.features_macos
        what = [w for w, used in (("bfloat16", bf16_used), ("complex tensors", complex_ops), ("FFT", fft)) if used]
        users = bf16 + complex_ops + fft
        if macos is None or not at_least(macos, needs):
            found.append(DtypeFinding(
                "macos14-features", "fail" if macos is not None else "warn",
                "%s on MPS: torch %d.%d needs macOS %s for them%s" % (
                    " and ".join(what), torch[0], torch[1], needs, ", this Mac runs %s" % macos if macos else ""),
                users, feature_message(), "release table mps_features_gated (%s-%s)" % releases.features_gated))
    reductions = ops_with(ops, ("int64",), INT64_REDUCTIONS, first_argument=True)
    why = None
    if reductions and torch is not None and torch < INT64_FROM:
        why = "torch %d.%d casts them to int32 or refuses them" % torch[:2]
    elif reductions and macos is not None and not at_least(macos, INT64_MACOS):
        why = "macOS %s is older than %s" % (macos, INT64_MACOS)
    if why:
        found.append(DtypeFinding("int64-reductions", "warn", "int64 reductions (%s): %s; values past 2**31 wrap, "
                                  "min/max raise" % (named(reductions), why), reductions,
                                  "MPS does not support min/max ops with int64 input", INT64_SOURCE))
    scatter = ops_with(ops, ("int64",), ("scatter_reduce",), first_argument=True)
    if scatter and torch is not None and torch >= SCATTER_INT64_FROM:
        if torch < SCATTER_MACOS15_FROM:
            found.append(DtypeFinding("scatter-reduce-int64", "warn", "scatter_reduce on int64: torch %d.%d refuses "
                                      "its min and max reductions on MPS" % torch[:2], scatter, "",
                                      "https://github.com/pytorch/pytorch/pull/141948"))
        elif torch[:2] <= SCATTER_MACOS15_UNTIL and (macos is None or not at_least(macos, "15.0")):
            found.append(DtypeFinding("scatter-reduce-int64", "warn", "scatter_reduce on int64: its amin and amax "
                                      "reductions need macOS 15 on MPS" + (", this Mac runs %s" % macos if macos else ""),
                                      scatter, "scatter_reduce(amin/amax) on int64 requires macOS 15 or newer",
                                      "https://github.com/pytorch/pytorch/pull/184028"))
    return tuple(found)


def cuda_findings(ops: Tuple[Op, ...], loaded: Optional[Loaded], capability: Optional[Tuple[int, ...]],
                  tf32: Optional[dict]) -> Tuple[DtypeFinding, ...]:
    """bfloat16 below sm_80, and the TF32 state of float32 matmuls and convolutions."""
    found = []
    bf16 = ops_with(ops, ("bfloat16",))
    if (bf16 or "bfloat16" in model_dtypes(loaded)) and capability is not None and \
            tuple(capability[:2]) < CUDA_BF16_CAPABILITY:
        found.append(DtypeFinding("cuda-bfloat16", "warn", "bfloat16 on compute capability %d.%d: native from 8.0 "
                                  "(torch.cuda.is_bf16_supported() is False here); use float16 with a GradScaler" %
                                  tuple(capability[:2]), bf16, "", "torch/cuda/__init__.py is_bf16_supported"))
    if tf32:
        matmul, cudnn = tf32.get("matmul"), tf32.get("cudnn")
        found.append(DtypeFinding("tf32", "pass", "TF32: float32 matmuls %s, convolutions %s (torch's defaults: matmuls "
                                  "off since 1.12, convolutions on); torch.set_float32_matmul_precision('high') turns "
                                  "matmuls on" % ("on" if matmul else "off", "on" if cudnn else "off"),
                                  source="https://pytorch.org/docs/stable/notes/cuda.html#tf32-on-ampere"))
    return tuple(found)


def feature_message() -> str:
    """What torch 2.3-2.8 print for bfloat16, complex or FFT on MPS below macOS 14: the catalogue's example of it."""
    return next((e.example for e in load_catalogue() if e.id == "mps.dtype-needs-macos14"), "")
