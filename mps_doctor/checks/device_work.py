"""The layers that run work on the device: tensor operations and a training step against the CPU."""

import math
import shlex
from typing import Optional, Tuple

from mps_doctor.checking.context import PYTORCH_MPS_DOCS, Context, timeout_outcome
from mps_doctor.checking.intents import actions_of
from mps_doctor.checking.model import (
    PROBE_DEVICE,
    CheckAgain,
    Cmd,
    InstallTorch,
    Outcome,
    Remedy,
    export,
    failed,
    note,
    passed,
    skipped,
    unset,
    warned,
)
from mps_doctor.checking.registry import DEVICE_RUN, check
from mps_doctor.facts import describe_failure, within
from mps_doctor.known_errors import MISSING_OPERATOR, OUT_OF_MEMORY, Intent, explain, first_of_kind
from mps_doctor.words import shorten

# Tolerances of the parity layers. Tensor ops: float32 against a float64 reference, relative to the
# reference's largest magnitude; the known MPS bugs (pytorch#109457, #118115) are off by O(1).
OP_RTOL = 1e-3
# Training step: gradients relative to the reference gradient's largest magnitude; 1e-2 leaves room for
# TF32 convolutions, which CUDA enables by default (reference/performance.md section 3).
GRAD_RTOL = 1e-2
LOSS_RTOL = 1e-3
WATERMARK_RATIOS = ("PYTORCH_MPS_HIGH_WATERMARK_RATIO", "PYTORCH_MPS_LOW_WATERMARK_RATIO")


def stage_failure(ctx: Context, stage: str):
    """An Outcome for a child that died during STAGE, else None."""
    failure = ctx.target.failure
    if failure is None or failure.stage != stage:
        return None
    what = describe_failure(failure)
    if failure.kind == "timeout":
        return timeout_outcome(ctx)
    return failed(
        "the %s run on %s %s" % (stage, ctx.device, what),
        Remedy("The %s stage on %s %s." % (stage, ctx.device, what),
               "A device that crashes or hangs on small tensor work is not usable for training.",
               (CheckAgain(device="cpu"),), ctx.device_docs(), key="device-crash"),
        *(("stderr: " + failure.stderr_tail,) if failure.stderr_tail else ()),
    )


def stage_missing(ctx: Context, stage: str, facts) -> Optional[Outcome]:
    """The outcome when STAGE's facts cannot be judged: the child died in it, never reported it, or (in a replayed
    report) ran it on another device than this verdict is about; else None."""
    crashed = stage_failure(ctx, stage)
    if crashed:
        return crashed
    from mps_doctor.devices import probed_devices

    probed = ",".join(probed_devices(ctx.target)) or ctx.device
    if ctx.device not in probed.split(","):
        return warned(
            "not probed on %s: the saved facts are for %s" % (ctx.device, probed),
            Remedy("This report's device work ran on %s, not %s." % (probed, ctx.device),
                   "Whether %s computes correctly is unknown until it is probed." % ctx.device,
                   (CheckAgain(device=ctx.device),), key=PROBE_DEVICE))
    if facts is None:
        return unprobed(ctx, "no %s facts were recorded for %s" % (stage, ctx.device))
    return None


def explained(remedy: Remedy, message: str, ctx: Context) -> Remedy:
    """REMEDY with the cause, fix and source of MESSAGE when the known-error catalogue (data/known_errors.json) has it."""
    known = explain(message)
    if known is None:
        return remedy
    found = known_actions(known.actions, ctx)
    actions = remedy.actions + tuple(a for a in found if a not in remedy.actions)
    return Remedy(remedy.problem, "%s (known error %s) %s" % (known.cause, known.id, known.fix), actions,
                  known.link or remedy.link, remedy.key, remedy.title)


def known_actions(intents: Tuple[Intent, ...], ctx: Context) -> Tuple[Cmd, ...]:
    """A catalogue entry's actions for this machine: settings and notes as such, a diagnostic as a line to read;
    installs are left to the check's own remedy, which chose the release and build for this machine."""
    version = ctx.target.interpreter.version if ctx.target.interpreter else ()
    return tuple(note("run: " + shlex.join(action.argv)) if action.kind == "run" else action
                 for action in actions_of(intents, ctx.facts.host.system, ctx.target.python, tuple(version or ()))
                 if isinstance(action, Cmd))


def unprobed(ctx: Context, summary: str) -> Outcome:
    """A failure for facts that a (replayed) report lacks: readiness cannot be shown without them."""
    return failed(summary, Remedy("The facts this layer judges are missing, so %s is not shown to work." % ctx.device,
                                  "Only a probe of the device on that machine can tell.",
                                  (CheckAgain(device=ctx.device),), key=PROBE_DEVICE))


@check("device.parity", "A tensor operation on the device matches the CPU",
       layer=90, devices=("mps", "cuda", "cpu"), facts=(DEVICE_RUN,), evidence=("wrong-results",))
def device_parity(ctx: Context) -> Outcome:
    """matmul at batch 16 (pytorch#109457) and `addcdiv_` on a transposed tensor (pytorch#118115) against float64 on
    the CPU; tolerance 1e-3 of the reference's largest magnitude; an operator without an MPS kernel fails with the
    `PYTORCH_ENABLE_MPS_FALLBACK=1` remedy, and one that fell back to the CPU warns (torch warns once per process,
    so it is caught where first met); MPSAllocator's "MPS backend out of memory" is named, with the
    `PYTORCH_MPS_HIGH_WATERMARK_RATIO` that set the limit.
    """
    parity = ctx.target.parity
    missing = stage_missing(ctx, "parity", parity)
    if missing:
        return missing
    if parity.error is not None:
        text = "%s: %s" % (parity.error.type, parity.error.message)
        if first_of_kind(OUT_OF_MEMORY, text):
            return out_of_memory(ctx, "small tensor work", text)
        if first_of_kind(MISSING_OPERATOR, text):
            return failed(
                "tensor work on %s raised %s: an operator has no MPS kernel in this torch" % (ctx.device, parity.error.type),
                Remedy(shorten(text.splitlines()[0], 300), "With PYTORCH_ENABLE_MPS_FALLBACK=1 torch runs such operators on the "
                       "CPU (slower, and this check then warns); a newer torch may have the kernel.",
                       (export("PYTORCH_ENABLE_MPS_FALLBACK", "1"),), PYTORCH_MPS_DOCS, key="mps-missing-operator",
                       title="Let operators missing on MPS run on the CPU"),
                text,
            )
        return failed(
            "tensor work on %s raised %s" % (ctx.device, parity.error.type),
            explained(Remedy(shorten(text.splitlines()[0], 300), "A device that cannot run a small matmul cannot train.",
                             (CheckAgain(device="cpu"),), ctx.device_docs(), key="device-error"), text, ctx),
            text,
        )
    details = tuple("%s: max |err| %.3g vs max |ref| %.3g (tolerance %.0e relative)" %
                    (op.name, op.max_abs_err if op.max_abs_err is not None else float("nan"), op.max_abs_ref, OP_RTOL)
                    for op in parity.ops)
    wrong = [op.name for op in parity.ops if not within(op, OP_RTOL)]
    if not parity.ops:
        return unprobed(ctx, "the parity probe reported no operations")
    if wrong:
        return failed(
            "%s gives wrong results on %s: %s" % ("an operation" if len(wrong) == 1 else "operations", ctx.device, ", ".join(wrong)),
            Remedy("Results on %s differ from a float64 CPU reference beyond the tolerance." % ctx.device,
                   "Silent correctness bugs of this kind shipped in torch releases (pytorch#109457, #118115) and in "
                   "virtualized GPUs (actions/runner-images#14380). " + upgrade_advice(ctx),
                   upgrade_torch(ctx), ctx.device_docs(), key="device-wrong-results",
                   title="Upgrade torch and torchvision to the newest pair for this machine"),
            *details,
        )
    summary = "%d operations on %s match a float64 CPU reference" % (len(parity.ops), ctx.device)
    if parity.fallback_warnings:
        return warned(summary + ", but ops fell back to the CPU",
                      fallback_remedy(ctx.host.env.get("PYTORCH_ENABLE_MPS_FALLBACK"), parity.fallback_warnings), *details)
    return passed(summary, *details)


def upgrade_advice(ctx: Context) -> str:
    """What to upgrade after wrong results on the device: macOS carries MPS, the NVIDIA driver carries CUDA."""
    carrier = {"mps": " and macOS", "cuda": " and the NVIDIA driver"}.get(ctx.device)
    return "Upgrade torch%s; until then train on the CPU." % carrier if carrier else "Upgrade torch."


def upgrade_torch(ctx: Context) -> tuple:
    """The newest torch pair for this machine; inside a virtual machine, and the CPU until a bare-metal Mac checks."""
    # MPS results inside a VM are not trustworthy (actions/runner-images#14380).
    return (InstallTorch(force=True),) + ((CheckAgain(device="cpu"),) if ctx.host.vmm_present else ())


def out_of_memory(ctx: Context, work: str, text: str, *details: str) -> Outcome:
    """A failed outcome for MPSAllocator's out-of-memory error during WORK, naming a watermark ratio that set the limit."""
    env = ctx.host.env
    ratios = [name for name in WATERMARK_RATIOS if env.get(name) not in (None, "")]
    if WATERMARK_RATIOS[0] in ratios:
        setting = "PYTORCH_MPS_HIGH_WATERMARK_RATIO=%s" % env[WATERMARK_RATIOS[0]]
        return failed(
            "%s ran out of memory on %s: the limit %s is too low" % (work, ctx.device, setting),
            Remedy("%s caps MPS allocations at that fraction of the GPU's recommended working set." % setting,
                   "Without it torch allows 1.7 times the recommended working set (MPSAllocator.h); a limit this low "
                   "fails the first few MiB.", tuple(unset(name) for name in ratios) + (
                       note("also remove them from your shell profile if they are set there"),), PYTORCH_MPS_DOCS,
                   key="mps-memory-limit", title="Lift the MPS memory limit back to torch's default"),
            text, *details)
    return failed(
        "%s ran out of memory on %s" % (work, ctx.device),
        Remedy(shorten(text.splitlines()[0], 300), "Other processes hold most of the GPU's memory, or the machine is under "
               "heavy memory pressure; close them and check again.", (CheckAgain(device=ctx.device),),
               PYTORCH_MPS_DOCS, key="mps-out-of-memory"),
        text, *details)


def fallback_remedy(flag: Optional[str], fallback_warnings) -> Remedy:
    """Ops that PYTORCH_ENABLE_MPS_FALLBACK=FLAG moved to the CPU, named by torch's first warning."""
    return Remedy("PYTORCH_ENABLE_MPS_FALLBACK=%s moved ops to the CPU: %s" % (flag, shorten(fallback_warnings[0], 200)),
                  "Fallback ops run on the CPU, silently slower; newer torch releases bring more MPS operators.",
                  (InstallTorch(),), PYTORCH_MPS_DOCS, key="mps-fallback",
                  title="Upgrade torch for more MPS operators")


@check("device.smoke", "A training step of the MNIST network works on the device",
       layer=100, devices=("mps", "cuda", "cpu"), facts=(DEVICE_RUN,))
def device_smoke(ctx: Context) -> Outcome:
    """The pytorch/examples MNIST Net on shipped MNIST digits: one step (dropout off, same weights and batch, TF32 off
    on CUDA) against the CPU (gradients within 1e-2, loss within 1e-3, relative), then 6 steps of batch 64 must
    lower the loss on held digits; fallback warnings warn; out of memory as in `device.parity`.
    """
    if ctx.options.quick:
        return skipped("skipped: --quick")
    smoke = ctx.target.smoke
    missing = stage_missing(ctx, "smoke", smoke)
    if missing:
        return missing
    on = "on the CPU (the target device is the CPU)" if smoke.device == "cpu" else "on %s" % smoke.device
    if smoke.error is not None:
        return smoke_error(ctx, smoke.error, on)
    details = smoke_details(smoke)
    mismatched = [g.name for g in smoke.grad_parity if not within(g, GRAD_RTOL)]
    loss_ok = smoke.loss_parity is not None and within(smoke.loss_parity, LOSS_RTOL)
    if not loss_ok or mismatched or not smoke.grad_parity:
        what = "loss" if not loss_ok else "gradients of " + ", ".join(mismatched)
        return failed(
            "one training step %s disagrees with the %s reference: %s" % (on, smoke.reference, what),
            Remedy("The same step (same weights, same batch, dropout off) gave different numbers %s." % on,
                   "Wrong gradients train a wrong model without any error message (pytorch#118115, "
                   "actions/runner-images#14380).",
                   upgrade_torch(ctx), ctx.device_docs(), key="smoke-mismatch",
                   title="Upgrade torch and torchvision to the newest pair for this machine"),
            *details,
        )
    before, after = smoke.loss_before, smoke.loss_after
    if before is None or after is None or not (math.isfinite(before) and math.isfinite(after)) or after >= before:
        return failed(
            "the loss did not fall %s (%s -> %s)" % (on, fmt(before), fmt(after)),
            Remedy("Training %d steps left the loss at %s from %s." % (smoke.steps, fmt(after), fmt(before)),
                   "On real MNIST digits a few Adadelta steps always lower the loss; this device does not train.",
                   (CheckAgain(device="cpu"),), ctx.device_docs(), key="smoke-no-learning"),
            *details,
        )
    summary = "trained %d steps %s: loss %.3f -> %.3f, %.1f ms/step warm" % (
        smoke.steps, on, before, after, smoke.warm_step_ms or float("nan"))
    if smoke.fallback_warnings:
        return warned(summary + ", but ops fell back to the CPU", fallback_remedy(smoke.fallback_env, smoke.fallback_warnings),
                      *details)
    return passed(summary, *details)


def smoke_error(ctx: Context, error, on: str) -> Outcome:
    """The failure for an exception raised by the training step ON a device."""
    text = "%s: %s" % (error.type, error.message)
    if first_of_kind(OUT_OF_MEMORY, text):
        return out_of_memory(ctx, "training the MNIST network", text, error.traceback)
    return failed(
        "training %s raised %s" % (on, error.type),
        explained(Remedy(shorten(text.splitlines()[0], 300), "The MNIST network of pytorch/examples could not train here.",
                         (export("PYTORCH_ENABLE_MPS_FALLBACK", "1"),) if first_of_kind(MISSING_OPERATOR, text) else
                         (CheckAgain(device="cpu"),), ctx.device_docs(), key="smoke-error"), text, ctx),
        text, error.traceback,
    )


def smoke_details(smoke) -> list:
    """The -v lines of a training step: tolerances, the loss and gradient differences, the timing."""
    details = [
        "reference: %s; loss tolerance %.0e, gradient tolerance %.0e (relative to the reference's largest value)"
        % (smoke.reference, LOSS_RTOL, GRAD_RTOL),
    ]
    if smoke.loss_parity is not None:
        error = smoke.loss_parity.max_abs_err
        details.append("loss: reference %.6g, |diff| %.3g" % (
            smoke.loss_parity.max_abs_ref, error if error is not None else float("nan")))
    details += ["grad %s: max |diff| %.3g vs max |ref| %.3g" % (g.name, g.max_abs_err or float("nan"), g.max_abs_ref)
                for g in smoke.grad_parity]
    details.append("timing: cold first step %.1f ms, warm %.1f ms/step over %d steps of batch %d" % (
        smoke.cold_step_ms or float("nan"), smoke.warm_step_ms or float("nan"), smoke.steps, smoke.batch))
    return details


def fmt(value) -> str:
    """A loss for a message."""
    return "unknown" if value is None else "%.3f" % value
