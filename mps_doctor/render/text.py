"""The text report: a status mark per check, grouped by layer, the root cause first, a one-line summary."""

import shlex
import textwrap
from typing import List, Optional

import click

from mps_doctor.checks.model import CheckResult, Remedy, Status
from mps_doctor.env_summary import environment_summary
from mps_doctor.render.safe import displayable
from mps_doctor.report import Report

MARKS = {Status.PASS: "✓", Status.WARN: "!", Status.FAIL: "✗", Status.SKIP: "-", Status.ERROR: "☠"}
ASCII_MARKS = {Status.PASS: "ok", Status.WARN: "!!", Status.FAIL: "XX", Status.SKIP: "--", Status.ERROR: "!?"}
# Prose is wrapped for reading; commands never are, so that they paste whole.
WIDTH = 100
DELIBERATE_SKIPS = ("skipped by policy", "skipped: not selected")
COLORS = {Status.PASS: "green", Status.WARN: "yellow", Status.FAIL: "red", Status.SKIP: None, Status.ERROR: "magenta"}


def render_text(report: Report, verbose: bool = False, color: bool = False, unicode: bool = True) -> str:
    """The whole text report as one string (colour codes only when COLOR); no control character of the report's
    own strings reaches the output."""
    report = displayable(report)
    lines: List[str] = []

    def mark(status: Status) -> str:
        glyph = "[%s]" % (MARKS if unicode else ASCII_MARKS)[status]
        return click.style(glyph, fg=COLORS[status], bold=True) if color and COLORS[status] else glyph

    target = report.facts.target
    interp = target.interpreter
    python = "Python %s" % ".".join(map(str, interp.version)) if interp else "Python ?"
    if interp and interp.machine:
        python += " " + interp.machine
    lines.append("mps-doctor %s: %s (%s), device %s" % (report.tool_version, target.python, python, report.options.device))
    if target.chosen_because:
        lines.append("Python chosen: %s" % target.chosen_because)
    root = report.result(report.verdict.root_cause) if report.verdict.root_cause else None
    if root is not None and root.status == Status.FAIL:
        lines.append("")
        lines.append("%s Root cause: %s" % (mark(root.status), root.summary))
        lines += remedy_lines(root.remedy, "    ", verbose=True)
        if root.rule:
            lines.append("    data: %s" % root.rule)
    layers = [r for r in report.results if r.layer is not None]
    advisories = [r for r in report.results if r.layer is None and not r.id.startswith("policy.")]
    policy = [r for r in report.results if r.id.startswith("policy.")]
    lines.append("")
    lines.append("Layers (%s):" % report.options.device)
    width = max(len(r.id) for r in report.results) if report.results else 10
    for result in layers:
        lines += result_lines(result, mark, width, verbose, show_remedy=result is not root)
    for title, group in (("Advisories", advisories), ("Policy (%s)" % (report.options.policy.source or "command line"),
                                                      policy)):
        shown = [r for r in group if verbose or r.status != Status.SKIP or r.summary.startswith(DELIBERATE_SKIPS)]
        if shown:
            lines.append("")
            lines.append(title + ":")
            for result in shown:
                lines += result_lines(result, mark, width, verbose, show_remedy=True)
    if verbose:
        lines.append("")
        lines.append("Environment:")
        rows = environment_summary(report.facts)
        label_width = max(len(label) for label, _ in rows)
        lines += ["  %-*s  %s" % (label_width, label, value) for label, value in rows]
    if not report.verdict.ready:
        lines.append("")
        lines.append("To print the commands that fix this, run: %s" % fix_command(report))
    lines.append("")
    summary = report.verdict.summary
    if color:
        summary = click.style(summary, fg="green" if report.verdict.ready else "red", bold=True)
    lines.append(summary)
    return "\n".join(lines) + "\n"


def fix_command(report: Report) -> str:
    """The `mps-doctor fix` command for the same target and options as REPORT."""
    options = report.options
    words = ["mps-doctor", "fix"]
    words += ["--from", options.replayed_from] if options.replayed_from else ["--python", report.facts.target.python]
    if options.requested_device != "auto":
        words += ["--device", options.requested_device]
    for device in options.required:
        words += ["--require-device", device]
    if options.quick:
        words.append("--quick")
    return " ".join(shlex.quote(word) for word in words)


def result_lines(result: CheckResult, mark, width: int, verbose: bool, show_remedy: bool) -> List[str]:
    """One line per check, its remedy under it for fail and warn, details with -v."""
    number = "%2d " % result.layer if result.layer is not None else "   "
    summary = result.summary + (" (accepted: %s)" % result.accepted if result.accepted else "")
    lines = ["  %s %s%-*s  %s" % (mark(result.status), number, width, result.id, summary)]
    indent = " " * 10
    if result.accepted and not verbose:
        show_remedy = False
    if result.remedy is not None and show_remedy and result.status in (Status.FAIL, Status.WARN, Status.ERROR):
        lines += remedy_lines(result.remedy, indent, verbose)
    if result.rule and (verbose or result.status in (Status.FAIL, Status.WARN)):
        lines.append("%sdata: %s" % (indent, result.rule))
    if verbose:
        for detail in result.details:
            for piece in str(detail).rstrip().splitlines():
                lines.append("%s%s" % (indent, piece))
    return lines


def remedy_lines(remedy: Optional[Remedy], indent: str, verbose: bool) -> List[str]:
    """A remedy: what and why (always for a root cause, with -v otherwise), the commands, the link."""
    if remedy is None:
        return []
    lines = []
    if verbose:
        for text in (remedy.problem, remedy.why):
            lines += textwrap.wrap(text, width=WIDTH, initial_indent=indent, subsequent_indent=indent) or [indent]
    for command in remedy.commands:
        lines.append("%s$ %s" % (indent, command))
    if remedy.link and verbose:
        lines.append("%ssee %s" % (indent, remedy.link))
    return lines
