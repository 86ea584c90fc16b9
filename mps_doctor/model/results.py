"""The results of a `model` run, one per question, like check's layers: the model loads, its operators run on the
device, its dtypes do, it fits in memory, the device is faster than the CPU, its gradients match the CPU. Each fail
or warning carries a Remedy of the remedy model (checks/model.py); remedies/ turns it into commands."""

from typing import Optional, Tuple

from mps_doctor.checking.context import PYTORCH_MPS_DOCS, Context
from mps_doctor.checking.model import (
    InstallTorch,
    Outcome,
    Remedy,
    Task,
    export,
    failed,
    note,
    passed,
    run,
    skipped,
    timed_out,
    warned,
)
from mps_doctor.facts import describe_failure, longer_timeout
from mps_doctor.model.dtypes import DtypeFinding, named
from mps_doctor.model.facts import ModelFacts, Observed, base_name
from mps_doctor.model.predict import Prediction
from mps_doctor.versions import version_tuple

# The checks of a model run, in order.
IDS = ("model.load", "model.operators", "model.dtypes", "model.memory", "model.speed", "model.parity")
TITLES = {"model.load": "The TARGET loads and its factory returns a model and inputs",
          "model.operators": "Every operator of a training step runs on the device",
          "model.dtypes": "The device supports the dtypes the step uses",
          "model.memory": "One training step fits in the device's memory",
          "model.speed": "The device is faster than the CPU at this batch",
          "model.parity": "Loss and gradients match the CPU"}
# Each stage of the child, by the result that reads it.
STAGE_OF = {"model.load": "model-load", "model.operators": "model-observe", "model.memory": "model-memory",
            "model.speed": "model-speed", "model.parity": "model-parity"}
FALLBACK = "PYTORCH_ENABLE_MPS_FALLBACK"
WATERMARK = "PYTORCH_MPS_HIGH_WATERMARK_RATIO"
# MPSAllocator.h: the allocator refuses past this ratio of the device's recommended working set by default.
DEFAULT_HIGH_WATERMARK = 1.7
# A peak above this share of the limit leaves too little for the rest of the system (and the next batch's shapes).
MEMORY_WARN_SHARE = 0.8
# Parity tolerances relative to the reference's largest magnitude, per parameter dtype: device.parity's and
# device.smoke's for float32 (checks/layers.py), wider for the half types (10 and 7 mantissa bits).
TOLERANCES = {"float32": (1e-3, 1e-2), "float16": (1e-2, 5e-2), "bfloat16": (2e-2, 1e-1)}
# Errors of a step on MPS that the dtype rules explain (float64, bfloat16 and complex refusals; macOS 14 gates).
DTYPE_ERRORS = ("float64", "BFloat16", "complex", "FFT operations")
OUT_OF_MEMORY = ("out of memory",)


def gib(size: float) -> str:
    """'1.2 GiB', '340 MiB'."""
    return "%.1f GiB" % (size / 2 ** 30) if size >= 2 ** 30 else "%.0f MiB" % (size / 2 ** 20)


def error_text(error) -> str:
    return "%s: %s" % (error.type, error.message.splitlines()[0] if error.message else "")


def stopped(mf: ModelFacts, result_id: str) -> Optional[Outcome]:
    """The outcome of RESULT_ID when the child was stopped in its stage (--timeout, a crash), else None."""
    failure = mf.failure
    if failure is None or STAGE_OF.get(result_id) != failure.stage and not (
            result_id == "model.operators" and failure.stage == "model-trace"):
        return None
    what = describe_failure(failure)
    if failure.kind == "timeout":
        longer = longer_timeout(failure.timeout_seconds or 0, 86400)
        return timed_out("the %s stage %s" % (failure.stage, what),
                         Remedy("The %s stage %s." % (failure.stage, what), "A bigger model or batch needs more time; "
                                "nothing shows whether it works or hangs.", (note("run again with --timeout %g" % longer),),
                                key="model-timeout", title="Run again with a longer --timeout"))
    return failed("the %s stage %s" % (failure.stage, what),
                  Remedy("The %s stage %s." % (failure.stage, what), "A crash of the interpreter while training is a "
                         "bug of torch or of a native extension the model uses.",
                         (note("run the model alone to see its traceback"),), key="model-crash"),
                  *(("stderr: " + failure.stderr_tail,) if failure.stderr_tail else ()))


def load_outcome(mf: ModelFacts, target: str) -> Outcome:
    """model.load: the TARGET imported and its factory returned (model, example_inputs[, loss_fn])."""
    halted = stopped(mf, "model.load")
    if halted:
        return halted
    loaded = mf.loaded
    if loaded is None:
        return skipped("not reached: the child never loaded the TARGET")
    if loaded.error is not None and target.startswith("torchvision:") and "torchvision" in error_text(loaded.error):
        return failed("%s needs torchvision, which does not import here: %s" % (target, error_text(loaded.error)),
                      Remedy("torchvision does not import in the target Python: %s" % error_text(loaded.error),
                             "The built-in %s is torchvision's model; torchvision is installed pinned to the installed "
                             "torch's release." % target, (InstallTorch(),), key="install-torch",
                             title="Install torchvision with its torch"))
    if loaded.error is not None:
        return failed("%s did not load (%s): %s" % (target, loaded.where or "import", error_text(loaded.error)),
                      Remedy("The TARGET %s failed in its %s: %s" % (target, loaded.where or "import",
                                                                      error_text(loaded.error)),
                             "mps-doctor imports TARGET and calls factory() in the target Python; it must return "
                             "(model, example_inputs) or (model, example_inputs, loss_fn).",
                             (note("fix the factory, then run mps-doctor model again"),), key="model-target"),
                      *tuple(loaded.error.traceback.splitlines()[-4:]))
    shapes = ", ".join("x".join(str(d) for d in i.shape) + " " + i.dtype for i in loaded.inputs[:3])
    dtypes = "/".join(loaded.parameter_dtypes) or "no parameters"
    return passed("%s (%s), %.1f M parameters (%s), inputs %s%s" % (
        loaded.class_name, loaded.module, (loaded.parameters or 0) / 1e6, dtypes, shapes or "none",
        "" if loaded.loss == "given" else "; loss: the mean of the output (the factory gave no loss_fn)"))


def native_task(ctx: Context, prediction: Prediction, on_this_mac: bool) -> Tuple[Task, ...]:
    """The task that installs the first release whose MPS kernels cover every operator, pinned for this Python and
    macOS; a note where none does, or where this machine is not the Mac."""
    native = prediction.native_from
    if native is None:
        return (Task("model-no-native", "No release in the table runs every operator natively", (note(
            "no torch up to %s has an MPS kernel for %s: keep %s=1, or run that part on the CPU" % (
                prediction.newest, named(prediction.missing or tuple(prediction.first_native)), FALLBACK)),)),)
    if not on_this_mac:
        return (Task("model-native-torch", "On the Mac: torch %s or newer runs every operator natively" % native,
                     (note("on the Mac: install torch %s or newer, pinned with its torchvision "
                           "(mps-doctor fix --torch %s.0 prints the commands there)" % (native, native)),)),)
    row = next((r for r in ctx.installable() if version_tuple(r.torch) >= version_tuple(native) and ctx.allows(r)),
               None)
    if row is None:
        return (Task("model-native-torch", "torch %s runs every operator natively, but not here" % native,
                     (run("softwareupdate", "--list"), note("torch %s and later need a newer macOS or another Python "
                                                           "than this one (mps-doctor check says which)" % native))),)
    return (Task("model-native-torch", "Install torch %s, the first release whose MPS kernels cover every operator "
                 "of this step" % row.torch, (InstallTorch(row.torch),)),)


def fallback_task() -> Task:
    return Task("model-fallback", "Or run them on the CPU: set %s=1 before Python starts" % FALLBACK,
                (export(FALLBACK, "1"),), "torch reads the variable once, when it loads its MPS backend; each such "
                "operator then copies its tensors to the CPU and back, silently slower.")


def classify(observed: Optional[Observed]) -> Optional[str]:
    """Which result explains the error of the observed step: model.dtypes, model.memory or model.operators."""
    if observed is None or observed.error is None:
        return None
    text = observed.error.message
    if any(word in text for word in DTYPE_ERRORS):
        return "model.dtypes"
    if any(word in text for word in OUT_OF_MEMORY):
        return "model.memory"
    return "model.operators"


def not_traced(mf: ModelFacts) -> str:
    """Why no operators were traced: the TARGET did not load, the torch has no dispatch-mode trace (before 2.0), or
    the trace did not run."""
    if mf.loaded is None or mf.loaded.error is not None:
        return "no operators traced: the TARGET did not load"
    if mf.trace is not None and not mf.trace.available:
        return "no operators traced: this torch has no dispatch-mode trace (TorchDispatchMode's mode stack came in 2.0)"
    return "no operators traced"


def operators_outcome(ctx: Context, mf: ModelFacts, prediction: Optional[Prediction], release: Optional[str],
                      observed_here: bool, flag: bool) -> Outcome:
    """model.operators: on MPS, the observed step (fallback warnings, NotImplementedErrors) where it ran, else the
    prediction for RELEASE; on CUDA and the CPU, the traced step. FLAG: the user's environment enables the fallback."""
    halted = stopped(mf, "model.operators")
    if halted:
        return halted
    trace, observed, device = mf.trace, mf.observed, mf.device
    if trace is not None and trace.error is not None:
        return failed("the step fails on the CPU too, at %s: %s" % (trace.op or "?", error_text(trace.error)),
                      Remedy("The training step of the TARGET raises on the CPU: %s" % error_text(trace.error),
                             "A model that does not train on the CPU is not ready for any device.",
                             (note("fix the model or its loss, then run mps-doctor model again"),), key="model-target"),
                      *tuple(trace.error.traceback.splitlines()[-4:]))
    count = len(prediction.ops) if prediction is not None else len(trace.ops) if trace else 0
    if observed_here and classify(observed) == "model.operators":
        return failed("the step fails on %s at %s: %s" % (device, observed.op or observed.where, error_text(observed.error)),
                      Remedy("The training step raises on %s: %s" % (device, error_text(observed.error)),
                             "An operator that exists for the device refuses these arguments (a shape, a layout or "
                             "a dtype it does not handle).", (note("mps-doctor model ... --format markdown makes a "
                                                                    "report for the model's or torch's issue tracker"),),
                             PYTORCH_MPS_DOCS, key="model-step-error"))
    if device != "mps":
        if not observed_here and device != "cpu":
            return skipped("%s is not available to torch here: %d operators traced on the CPU" % (device, count))
        return passed("%d operators of a training step ran on %s" % (count, device))
    if observed_here:
        ops = observed.fallback_ops or tuple(r.op for r in observed.refused)
        if not ops:
            return passed("all %d operators ran on mps (observed), none fell back to the CPU" % count)
        first = (mf.observed_without_fallback.refused[0].op if mf.observed_without_fallback is not None and
                 mf.observed_without_fallback.refused else ops[0])
        return fallback_outcome(ctx, prediction, ops, first, flag, "observed", count)
    if prediction is None or not prediction.ops:
        return skipped(not_traced(mf))
    if not prediction.coverage:
        return skipped("no kernel table (data/mps_kernels.json) in this mps-doctor: run it on the Mac to observe")
    if not prediction.in_table:
        return skipped("torch %s is not in the kernel table (%s to %s): run it on the Mac to observe" % (
            release or "?", prediction.coverage[0].release if prediction.coverage else "?", prediction.newest or "?"))
    if not prediction.missing:
        return passed("all %d operators have MPS kernels in torch %s (predicted)" % (count, prediction.release))
    traced = (trace.ops if trace is not None else ()) or (observed.ops if observed is not None and observed.ops else ())
    ops = tuple(dict.fromkeys(next((op.name for op in traced if op.namespace == "aten" and op.base == base),
                                   "aten::" + base) for base in prediction.missing))
    return fallback_outcome(ctx, prediction, ops, ops[0], flag, "predicted", count)


def fallback_outcome(ctx: Context, prediction: Optional[Prediction], ops: Tuple[str, ...], first: str, flag: bool,
                     basis: str, count: int) -> Outcome:
    """Operators without an MPS kernel: a warning with the fallback on (they run on the CPU), a failure without."""
    release = prediction.release if prediction is not None else ctx.torch_version()
    tasks = native_task(ctx, prediction, ctx.is_mac) if prediction is not None and prediction.coverage else ()
    native = (" torch %s and later run all %d natively." % (prediction.native_from, count)
              if prediction is not None and prediction.native_from else "")
    since = prediction.first_native if prediction is not None else {}
    details = tuple("%s: an MPS kernel from torch %s" % (op, since.get(base_name(op)) or "? (none in the table)")
                    for op in ops)
    if flag:
        return warned("%d of %d operators fall back to the CPU with %s=1 (%s): %s" % (
            len(ops), count, FALLBACK, basis, named(ops)),
            Remedy("%d operators have no MPS kernel in torch %s: %s" % (len(ops), release, named(ops)),
                   "They run on the CPU: each copies its tensors to the CPU and back, every step.%s" % native, tasks,
                   PYTORCH_MPS_DOCS, key="model-fallback-ops", title="Upgrade torch so that every operator runs on MPS"),
            *details)
    return failed("%d of %d operators have no MPS kernel in torch %s (%s): %s" % (len(ops), count, release, basis,
                                                                                 named(ops)),
                  Remedy("%d operators have no MPS kernel in torch %s: %s" % (len(ops), release, named(ops)),
                         "Without %s=1 the first, %s, raises NotImplementedError and the step stops.%s" % (
                             FALLBACK, first, native),
                         tasks + (fallback_task(),), PYTORCH_MPS_DOCS, key="model-missing-ops",
                         title="Install a torch whose MPS kernels cover every operator"),
                  "without %s=1, %s raises NotImplementedError first" % (FALLBACK, first), *details)


def dtypes_outcome(mf: ModelFacts, findings: Tuple[DtypeFinding, ...], observed_here: bool) -> Outcome:
    """model.dtypes: the dtype rules, and a refusal the observed step met."""
    observed = mf.observed
    refused = observed_here and classify(observed) == "model.dtypes"
    worst = next((f for f in findings if f.status == "fail"), None)
    if refused or worst is not None:
        summary = ("%s refused it (observed, %s): %s" % (mf.device, observed.where, error_text(observed.error))
                   if refused else worst.summary)
        wide = refused and "float64" in observed.error.message or worst is not None and worst.rule == "float64"
        actions = ((note("replace .double() and torch.float64 by .float() and torch.float32 (from numpy: "
                         "torch.from_numpy(a).float())"),) if wide else
                   (run("softwareupdate", "--list"), note("or keep these tensors in float32 or float16")))
        return failed(summary, Remedy(summary, "MPS has no float64; bfloat16, complex and FFT depend on the release "
                                      "and macOS.", actions, PYTORCH_MPS_DOCS,
                                      key="model-float64" if wide else "model-dtype-gate",
                                      title="Use float32 for MPS" if wide else "Upgrade macOS for these dtypes"),
                      *(f.summary for f in findings))
    warning = next((f for f in findings if f.status == "warn"), None)
    if warning is not None:
        return warned(warning.summary, Remedy(warning.summary, "The device computes these dtypes otherwise, or "
                                              "refuses some of their operations.", (note(warning.source),),
                                              warning.source if warning.source.startswith("http") else None,
                                              key="model-dtype-" + warning.rule), *(f.summary for f in findings))
    seen = sorted({d for op in (mf.trace.ops if mf.trace else ()) for d in op.dtypes})
    return passed("%s: no dtype the device refuses%s" % (", ".join(seen) or "no tensors traced", "".join(
        "; " + f.summary for f in findings if f.status == "pass")))


def fit(mf: ModelFacts) -> Tuple[Optional[float], Optional[float]]:
    """(fixed bytes, bytes per sample) of a step's peak up to its backward (where activations grow with the batch; the
    whole step's where a child did not report it): a line through two batches, else the parameters times four
    (weights, gradients and AdamW's two moments) as the fixed part of one batch's peak."""
    points = sorted(((p.batch, p.backward_peak_bytes if p.backward_peak_bytes is not None else p.peak_bytes)
                     for p in mf.memory.points), key=lambda p: p[0])
    if len(points) >= 2 and points[-1][0] != points[0][0]:
        (b1, p1), (b2, p2) = points[0], points[-1]
        per = (p2 - p1) / float(b2 - b1)
        return (p1 - per * b1, per) if per > 0 else (None, None)
    if len(points) == 1 and mf.loaded is not None and mf.loaded.parameter_bytes:
        fixed = 4.0 * mf.loaded.parameter_bytes
        per = (points[0][1] - fixed) / float(points[0][0])
        return (fixed, per) if per > 0 else (None, None)
    return None, None


def largest_batch(mf: ModelFacts, limit: Optional[int]) -> Optional[int]:
    """The largest batch whose estimated peak stays within LIMIT bytes: the backward's line, and the optimizer step's
    peak, which does not grow with the batch, within it too."""
    fixed, per = fit(mf)
    if limit is None or fixed is None or per is None or limit <= fixed:
        return None
    steps = [p.peak_bytes - (p.backward_peak_bytes or 0) for p in mf.memory.points if p.backward_peak_bytes is not None]
    if steps and max(steps) > limit:
        return None
    return int((limit - fixed) // per)
