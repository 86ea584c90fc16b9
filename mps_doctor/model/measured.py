"""The measured results of a `model` run: memory, speed and parity on the device (skipped where it did not run)."""

import math
import re
import statistics
from typing import Optional, Tuple

from mps_doctor.checking.context import PYTORCH_MPS_DOCS
from mps_doctor.checking.model import Outcome, Remedy, Task, export, failed, note, passed, skipped, warned
from mps_doctor.facts import within
from mps_doctor.model.facts import ModelFacts
from mps_doctor.model.results import (
    DEFAULT_HIGH_WATERMARK,
    MEMORY_WARN_SHARE,
    TOLERANCES,
    WATERMARK,
    classify,
    error_text,
    fit,
    gib,
    largest_batch,
    stopped,
)


def not_measured(mf: ModelFacts, observed_here: bool) -> Optional[Outcome]:
    """Why the device's measurements are missing, as a skip; None when they ran."""
    if mf.device == "cpu":
        return None
    if not observed_here:
        return skipped("not measured: %s is not available to torch in this Python (predicted only)" % mf.device)
    if mf.observed is not None and mf.observed.error is not None:
        return skipped("not measured: the step failed on %s" % mf.device)
    return None


# MPSAllocator.mm's out-of-memory message (torch 1.13.1 to 2.15.0): what it held and what it was asked for.
OOM_FIGURES = re.compile(r"MPS allocated: ([0-9.]+) (GB|MB|KB|bytes), other allocations: ([0-9.]+) (GB|MB|KB|bytes), "
                         r"max allowed: ([0-9.]+) (GB|MB|KB|bytes)\)?\. Tried to allocate ([0-9.]+) (GB|MB|KB|bytes)")
UNITS = {"GB": 2 ** 30, "MB": 2 ** 20, "KB": 2 ** 10, "bytes": 1}
# MPSAllocator.h: torch refuses a high watermark ratio above 2.0 (default_high_watermark_upper_bound).
MAX_HIGH_WATERMARK = 2.0
WATERMARK_WHY = ("MPS refuses allocations past %s (default %.1f) times the recommended working set "
                 "(torch.mps.recommended_max_memory()); above 1.0 macOS swaps, and 0.0 removes the limit, which can "
                 "make the whole system fail. torch reads it when Python starts, so set it in that shell."
                 % (WATERMARK, DEFAULT_HIGH_WATERMARK))


def watermark_task(message: str, ratio: Optional[str]) -> Tuple[Task, ...]:
    """From MPS's out-of-memory MESSAGE: the task that raises the high watermark (now RATIO, default 1.7) just above
    what the step asked for; none when the message has no figures or no ratio up to 2.0 would do."""
    found = OOM_FIGURES.search(message)
    if not found:
        return ()
    allocated, other, allowed, asked = (float(found.group(i)) * UNITS[found.group(i + 1)] for i in (1, 3, 5, 7))
    try:
        current = float(ratio) if ratio else DEFAULT_HIGH_WATERMARK
    except ValueError:
        current = DEFAULT_HIGH_WATERMARK
    if allowed <= 0 or current <= 0:
        return ()
    needed = math.ceil(current * (allocated + other + asked) / allowed * 10 + 1) / 10.0
    if needed > MAX_HIGH_WATERMARK:
        return ()
    return (Task("model-watermark", "Or let MPS allocate up to %.1f times the recommended working set" % needed,
                 (export(WATERMARK, "%.1f" % needed),), WATERMARK_WHY),)


def memory_outcome(mf: ModelFacts, observed_here: bool, batch: Optional[int]) -> Outcome:
    """model.memory: the peak of one step against the device's limit, and the largest batch estimated to fit."""
    halted = stopped(mf, "model.memory")
    if halted:
        return halted
    if observed_here and classify(mf.observed) == "model.memory":
        return out_of_memory(mf, batch, mf.observed.error)
    missing = not_measured(mf, observed_here)
    if missing or mf.device == "cpu":
        return missing or skipped("not measured on the CPU: torch has no allocator statistics there")
    memory = mf.memory
    if memory is None or memory.unavailable:
        return skipped("not measured: %s" % (memory.unavailable if memory else "the stage did not run"))
    if memory.error is not None and not memory.points:
        return out_of_memory(mf, batch, memory.error)
    point = next((p for p in memory.points if p.batch == batch), memory.points[0])
    limit, source = memory.limit_bytes, memory.limit_source
    fits = largest_batch(mf, limit)
    fixed, per = fit(mf)
    details = tuple("batch %d: peak %s%s%s" % (p.batch, gib(p.peak_bytes), "" if p.backward_peak_bytes is None else
                                              ", %s by the end of the backward" % gib(p.backward_peak_bytes),
                                              "" if p.sampled else " (after the step)") for p in memory.points)
    if fixed is not None:
        details += ("fixed %s (weights, gradients, optimizer state), %s per sample up to the backward" % (
            gib(fixed), gib(per)),)
    if limit is None:
        return passed("peak %s at batch %d; the limit is unknown (torch.mps.recommended_max_memory() came in 2.5)" % (
            gib(point.peak_bytes), point.batch), *details)
    share = point.peak_bytes / float(limit)
    estimate = "; about %d fit" % fits if fits else ""
    summary = "peak %s at batch %d, %.0f%% of %s (%s)%s" % (gib(point.peak_bytes), point.batch, 100 * share,
                                                           gib(limit), source, estimate)
    if share <= MEMORY_WARN_SHARE:
        return passed(summary, *details)
    smaller = largest_batch(mf, int(limit * MEMORY_WARN_SHARE)) or max(1, point.batch // 2)
    why = "Near the limit the allocator fails on the next larger shape%s." % (
        ", and past it macOS swaps. " + WATERMARK_WHY if mf.device == "mps" else "")
    return warned(summary, Remedy("One step at batch %d takes %.0f%% of %s's memory limit" % (point.batch, 100 * share,
                                                                                           mf.device), why,
                                  (note("batch %d or less keeps the peak under %.0f%% of the limit" % (
                                      smaller, 100 * MEMORY_WARN_SHARE)),),
                                  PYTORCH_MPS_DOCS if mf.device == "mps" else None, key="model-memory",
                                  title="Leave memory headroom"), *details)


def out_of_memory(mf: ModelFacts, batch: Optional[int], error) -> Outcome:
    """A step that ran out of memory: a smaller batch, and on MPS a high watermark just above what it asked for."""
    text = error_text(error)
    tasks = watermark_task(error.message, mf.memory.high_watermark_ratio if mf.memory else None) \
        if mf.device == "mps" else ()
    return failed("out of memory on %s at batch %s: %s" % (mf.device, batch, text),
                  Remedy("One step at batch %s does not fit on %s: %s" % (batch, mf.device, text),
                         "Activations grow with the batch; the weights, gradients and optimizer state do not.",
                         (Task("model-smaller-batch", "Train with a smaller batch", (
                             note("a smaller batch: --batch %d" % max(1, (batch or 2) // 2)),)),) + tasks,
                         PYTORCH_MPS_DOCS if mf.device == "mps" else None, key="model-memory",
                         title="Train with a smaller batch"))


def median(values) -> Optional[float]:
    return statistics.median(values) if values else None


def crossover(mf: ModelFacts) -> Tuple[Optional[int], bool]:
    """(the smallest scanned batch from which the device stays faster than the CPU, whether the scan found one)."""
    points = [p for p in mf.speed.scan if p.device_ms is not None and p.cpu_ms is not None]
    winner = None
    for point in points:
        if point.device_ms < point.cpu_ms:
            winner = winner or point.batch
        else:
            winner = None
    return winner, winner is not None


def speed_outcome(mf: ModelFacts, observed_here: bool) -> Outcome:
    """model.speed: warm step time on the device against the CPU at the batch (median of the windows), and the batch
    from which the device wins."""
    halted = stopped(mf, "model.speed")
    if halted:
        return halted
    missing = not_measured(mf, observed_here)
    if missing:
        return missing
    speed = mf.speed
    if speed is None or speed.error is not None or mf.device not in speed.runs:
        return skipped("not measured: %s" % (error_text(speed.error) if speed and speed.error else "no timing"))
    device_ms = median(speed.runs[mf.device].window_ms)
    details = tuple("%s: cold step %.0f ms, warm %s ms/step" % (name, timing.cold_ms, ", ".join(
        "%.1f" % ms for ms in timing.window_ms)) for name, timing in speed.runs.items())
    details += tuple("batch %d: %s %s, cpu %s" % (p.batch, mf.device, "%.1f ms" % p.device_ms if p.device_ms else
                                                  "-", "%.1f ms" % p.cpu_ms if p.cpu_ms else p.error or "-")
                     for p in speed.scan)
    if mf.device == "cpu" or "cpu" not in speed.runs:
        return passed("%.1f ms per step on %s at batch %s" % (device_ms, mf.device, speed.batch), *details)
    cpu_ms = median(speed.runs["cpu"].window_ms)
    from_batch, found = crossover(mf)
    where = ("; faster from batch %d" % from_batch if found else
             "; not faster at any scanned batch up to %d" % speed.scan[-1].batch if speed.scan else "")
    summary = "%s %.1f ms/step, the CPU %.1f ms/step at batch %s (%.2fx)%s" % (
        mf.device, device_ms, cpu_ms, speed.batch, cpu_ms / device_ms, where)
    if device_ms <= cpu_ms:
        return passed(summary, *details)
    advice = ("at batch %d or more the device is faster" % from_batch if found else
              "train this model on the CPU at this size, or try a larger batch or model")
    return warned(summary, Remedy("%s is slower than the CPU for this model at batch %s" % (mf.device, speed.batch),
                                  "Small steps are bound by launching each operator, not by computing it.",
                                  (note(advice),), key="model-slower", title="Pick the faster device or batch"), *details)


def relative(comparison) -> float:
    """A comparison's error over its reference's largest magnitude (infinite when not finite)."""
    if not comparison.finite or comparison.max_abs_err is None:
        return float("inf")
    return comparison.max_abs_err / max(comparison.max_abs_ref, 1e-12)


def agrees(comparison, rtol: float, baseline=None) -> bool:
    """Whether COMPARISON is within RTOL of its reference's scale, or for a half-precision model no further than
    twice the CPU's own error in that dtype (BASELINE)."""
    if within(comparison, rtol):
        return True
    return baseline is not None and baseline.finite and relative(comparison) <= 2 * relative(baseline)


def parity_outcome(mf: ModelFacts, observed_here: bool) -> Outcome:
    """model.parity: loss and gradients of one step (eval mode) on the device against the CPU."""
    halted = stopped(mf, "model.parity")
    if halted:
        return halted
    missing = not_measured(mf, observed_here)
    if missing:
        return missing
    parity = mf.parity
    if parity is None:
        return skipped("not measured: the stage did not run")
    if parity.error is not None:
        return failed("the parity step failed on %s: %s" % (mf.device, error_text(parity.error)),
                      Remedy("Comparing the step with the CPU failed: %s" % error_text(parity.error),
                             "The model's eval-mode step fails on the device.", (note("see the error above"),),
                             key="model-parity"))
    dtype = parity.dtype or "float32"
    loss_tol, grad_tol = TOLERANCES.get(dtype, TOLERANCES["float32"])
    baseline = {g.name: g for g in parity.baseline_grads}
    wrong = [g.name for g in parity.grads if not agrees(g, grad_tol, baseline.get(g.name))]
    loss_ok = parity.loss is not None and agrees(parity.loss, loss_tol, parity.baseline_loss)
    worst = max((g.max_abs_err / max(g.max_abs_ref, 1e-12) for g in parity.grads if g.finite and g.max_abs_err is not
                 None), default=0.0)
    summary = "loss and %d gradients on %s against the CPU (%s): largest gradient error %.1e of its scale" % (
        len(parity.grads), mf.device, parity.reference, worst)
    details = ("tolerance %.0e for the loss, %.0e for gradients (%s), relative to the reference's largest value%s" % (
        loss_tol, grad_tol, dtype, ", or twice the CPU's own error in %s" % dtype if parity.baseline_grads else ""),)
    details += tuple("%s: %.1e of its scale%s" % (g.name, relative(g), " (the CPU in %s: %.1e)" % (
        dtype, relative(baseline[g.name])) if g.name in baseline else "") for g in parity.grads)
    if loss_ok and not wrong and parity.grads:
        return passed(summary, *details)
    what = ("%d of %d gradients differ beyond %.0e: %s" % (len(wrong), len(parity.grads), grad_tol, ", ".join(wrong[:4]))
            if wrong else "the loss differs beyond %.0e" % loss_tol)
    return failed("%s (%s)" % (what, parity.reference),
                  Remedy("The step on %s gives other gradients than the CPU: %s" % (mf.device, what),
                         "Wrong gradients train a wrong model without any error.",
                         (note("mps-doctor model ... --format markdown makes a report for torch's issue tracker"),),
                         PYTORCH_MPS_DOCS if mf.device == "mps" else None, key="model-parity",
                         title="Report the mismatch; train on the CPU until it is fixed"), *details)
