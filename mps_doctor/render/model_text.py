"""The text form of a `model` report: the target, the operator table (predicted per release, observed on the
device), then the results as `check` shows its layers (each remedy with its commands, in the user's shell)."""

from typing import Dict, List, Tuple

import click

from mps_doctor import __version__
from mps_doctor.model.dtypes import named
from mps_doctor.model.report import ModelReport
from mps_doctor.model.results import not_traced
from mps_doctor.render.safe import displayable, escaped_line
from mps_doctor.render.text import ROOT_HEADINGS, marker, result_lines, root_cause_lines, shown_commands

PHASES = ("forward", "backward", "optimizer")


def header_lines(report: ModelReport) -> List[str]:
    """What was run, in which Python, with which torch, on which device and batch."""
    target, mf, loaded = report.facts.target, report.model, report.model.loaded
    interp, torch = target.interpreter, target.torch
    python = "Python %s" % ".".join(map(str, interp.version)) if interp else "Python ?"
    batch = " at batch %d" % loaded.batch if loaded is not None and loaded.batch else ""
    lines = ["mps-doctor %s model: %s on %s%s" % (__version__, report.request.target.text, mf.device, batch),
             "  %s (%s), torch %s" % (target.python, python, torch.version if torch and torch.version else "?")]
    if target.chosen_because and target.chosen_because != "--python":
        lines.append("  Python chosen: %s" % target.chosen_because)
    if report.request.torch:
        lines.append("  predicted for torch %s (--torch)" % report.request.torch)
    return lines


def phase_counts(report: ModelReport) -> str:
    """'forward 23, backward 25, optimizer 9'."""
    ops = report.model.trace.ops if report.model.trace else ()
    counts = {phase: sum(1 for op in ops if phase in op.phases) for phase in PHASES}
    return ", ".join("%s %d" % (phase, counts[phase]) for phase in PHASES if counts[phase])


def operator_lines(report: ModelReport, verbose: bool) -> List[str]:
    """The traced operators, the predicted table per release (when the device is MPS) and what was observed."""
    mf, prediction = report.model, report.prediction
    trace = mf.trace
    if trace is None or not trace.available:
        return ["Operators: %s" % not_traced(mf)]
    lines = ["Operators: %d ATen operators in one training step (%s), traced on the CPU" % (
        len(prediction.ops) if prediction else 0, phase_counts(report))]
    if prediction is not None and prediction.other:
        lines.append("  not in the kernel table (other libraries' operators): %s" % named(prediction.other))
    if mf.device == "mps" and prediction is not None:
        lines += prediction_lines(report)
    if mf.device == "mps":
        lines += observed_lines(report)
    if verbose and trace.ops:
        lines.append("  every operator (calls, phases, dtypes):")
        lines += ["    %-44s %5d  %-26s %s" % (op.name, op.count, ",".join(op.phases), ",".join(op.dtypes))
                  for op in trace.ops]
    return lines


def prediction_lines(report: ModelReport) -> List[str]:
    """Per release of the kernel table: how many operators have no MPS kernel, and which."""
    prediction, trace = report.prediction, report.model.trace
    if not prediction.coverage:
        return ["  predicted on MPS: no kernel table (data/mps_kernels.json) in this mps-doctor"]
    overload = {op.base: op.name for op in reversed(trace.ops) if op.namespace == "aten"}
    installed = report.facts.target.torch.version if report.facts.target.torch else None
    lines = ["  predicted on MPS (kernel table of torch %s to %s):" % (prediction.coverage[0].release, prediction.newest),
             "    %-10s %s" % ("torch", "without an MPS kernel (CPU fallback, or NotImplementedError)")]
    for first, last, missing in grouped(prediction):
        releases = [row.release for row in prediction.coverage]
        span = releases[releases.index(first):releases.index(last) + 1]
        mark = []
        if installed and ".".join(installed.split(".")[:2]) in span:
            mark.append("installed: %s" % ".".join(installed.split(".")[:2]))
        if report.request.torch and prediction.release in span:
            mark.append("--torch %s" % prediction.release)
        names = tuple(overload.get(op, "aten::" + op) for op in missing)
        label = first if first == last else "%s-%s" % (first, last)
        lines.append("    %-10s %-3d %s%s" % (label, len(missing), named(names, 3) if names else "",
                                             " (%s)" % ", ".join(mark) if mark else ""))
    if prediction.native_from:
        lines.append("  every operator runs natively on MPS from torch %s" % prediction.native_from)
    else:
        lines.append("  no torch up to %s runs every operator natively on MPS" % prediction.newest)
    if prediction.release and not prediction.in_table:
        lines.append("  torch %s is not in the table" % prediction.release)
    if installed:
        lines.append("  (traced with torch %s: an older release may dispatch other operators for the same model)" %
                     installed)
    return lines


def grouped(prediction) -> List[Tuple[str, str, Tuple[str, ...]]]:
    """(first, last, missing) for each run of consecutive releases that miss the same operators."""
    groups: List[Tuple[str, str, Tuple[str, ...]]] = []
    for row in prediction.coverage:
        if groups and groups[-1][2] == row.missing:
            groups[-1] = (groups[-1][0], row.release, row.missing)
        else:
            groups.append((row.release, row.release, row.missing))
    return groups


def observed_lines(report: ModelReport) -> List[str]:
    """What the step on MPS showed: the fallbacks (the fallback on), the NotImplementedErrors (off), the failure."""
    observed, without = report.model.observed, report.model.observed_without_fallback
    if observed is None:
        return ["  observed on mps: not run (MPS is not available to torch in this Python)"]
    if observed.error is not None:
        return ["  observed on mps: failed while %s: %s: %s" % (observed.where, observed.error.type,
                                                                observed.error.message.splitlines()[0])]
    lines = ["  observed on mps (PYTORCH_ENABLE_MPS_FALLBACK=1): %s" % (
        "%d fell back to the CPU: %s" % (len(observed.fallback_ops), named(observed.fallback_ops))
        if observed.fallback_ops else "every operator ran on mps")]
    if without is not None:
        refused = tuple(r.op for r in without.refused)
        lines.append("  observed on mps without the fallback: %s" % (
            "NotImplementedError from %s" % named(refused) if refused else "no NotImplementedError"))
    return lines


def render_model_text(report: ModelReport, verbose: bool = False, color: bool = False, unicode: bool = True) -> str:
    """The whole report as text; no control character of the report's own strings reaches the output."""
    commands: Dict[str, Tuple[str, ...]] = shown_commands(report.plan_report())
    report = displayable(report)
    mark = marker(color, unicode)
    lines = header_lines(report) + [""] + operator_lines(report, verbose)
    root = next((r for r in report.results if r.id == report.verdict.root_cause), None)
    if root is not None and root.status in ROOT_HEADINGS:
        lines += [""] + root_cause_lines(root, commands.get(root.id, ()), mark)
    lines += ["", "Results (%s):" % report.model.device]
    width = max(len(r.id) for r in report.results)
    for result in report.results:
        lines += result_lines(result, commands.get(result.id, ()), mark, width, verbose,
                              show_remedy=result is not root or root.status not in ROOT_HEADINGS)
    summary = escaped_line(report.verdict.summary)
    if color:
        summary = click.style(summary, fg="green" if report.verdict.ready else "red", bold=True)
    lines += ["", summary]
    return "\n".join(lines) + "\n"
