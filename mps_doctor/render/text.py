"""The text report: a status mark per check, grouped by layer, the root cause first, a one-line summary."""

import shlex
from typing import List, Optional, Tuple

import click

from mps_doctor.checks.model import CheckResult, Remedy, Status
from mps_doctor.checks.registry import all_checks
from mps_doctor.env_summary import environment_summary
from mps_doctor.render.commands import remedy_commands
from mps_doctor.render.safe import displayable, one_line
from mps_doctor.report import Report
from mps_doctor.words import wrap

MARKS = {Status.PASS: "✓", Status.WARN: "!", Status.FAIL: "✗", Status.SKIP: "-", Status.ERROR: "☠"}
ASCII_MARKS = {Status.PASS: "ok", Status.WARN: "!!", Status.FAIL: "XX", Status.SKIP: "--", Status.ERROR: "!?"}
# Prose is wrapped for reading, never inside a path or a `command` (words.wrap); commands never are, so that they
# paste whole.
WIDTH = 100
DELIBERATE_SKIPS = ("skipped by policy", "skipped: not selected")
COLORS = {Status.PASS: "green", Status.WARN: "yellow", Status.FAIL: "red", Status.SKIP: None, Status.ERROR: "magenta"}


def render_text(report: Report, verbose: bool = False, color: bool = False, unicode: bool = True) -> str:
    """The whole text report as one string (colour codes only when COLOR); no control character of the report's
    own strings reaches the output."""
    commands = {result_id: tuple(one_line(line) for command in spelled for line in command.split("\n")
                                 if not line.startswith("# shellcheck"))
                for result_id, spelled in remedy_commands(report).items()}
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
        lines += remedy_lines(root.remedy, commands[root.id], "    ", verbose=True)
        if root.rule:
            lines.append("    data: %s" % root.rule)
    layers = [r for r in report.results if r.layer is not None]
    policy_ids = {spec.id for spec in all_checks() if spec.policy}
    advisories = [r for r in report.results if r.layer is None and r.id not in policy_ids]
    policy = [r for r in report.results if r.id in policy_ids]
    lines.append("")
    lines.append("Layers (%s):" % report.options.device)
    width = max(len(r.id) for r in report.results) if report.results else 10
    # A failing root cause shows its remedy above; a warning that is the root cause under --strict shows it in place.
    shown_above = root if root is not None and root.status == Status.FAIL else None
    for result in layers:
        lines += result_lines(result, commands[result.id], mark, width, verbose, show_remedy=result is not shown_above)
    for title, group in (("Advisories", advisories), ("Policy (%s)" % (report.options.policy.source or "command line"),
                                                      policy)):
        shown = [r for r in group if verbose or r.status != Status.SKIP or r.summary.startswith(DELIBERATE_SKIPS)]
        if shown:
            lines.append("")
            lines.append(title + ":")
            for result in shown:
                lines += result_lines(result, commands[result.id], mark, width, verbose, show_remedy=True)
    if verbose:
        lines.append("")
        lines.append("Environment:")
        rows = environment_summary(report.facts)
        label_width = max(len(label) for label, _ in rows)
        lines += ["  %-*s  %s" % (label_width, label, value) for label, value in rows]
    if not report.verdict.ready and report.verdict.root_cause:
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


def result_lines(result: CheckResult, commands: Tuple[str, ...], mark, width: int, verbose: bool,
                 show_remedy: bool) -> List[str]:
    """One line per check, its remedy (with COMMANDS, as `fix` prints them) under it for fail and warn, details
    with -v."""
    number = "%2d " % result.layer if result.layer is not None else "   "
    summary = result.summary + (" (accepted: %s)" % result.accepted if result.accepted else "")
    lines = ["  %s %s%-*s  %s" % (mark(result.status), number, width, result.id, summary)]
    indent = " " * 10
    if result.accepted and not verbose:
        show_remedy = False
    if result.remedy is not None and show_remedy and result.status in (Status.FAIL, Status.WARN, Status.ERROR):
        lines += remedy_lines(result.remedy, commands, indent, verbose)
    if result.rule and (verbose or result.status in (Status.FAIL, Status.WARN)):
        lines.append("%sdata: %s" % (indent, result.rule))
    if verbose:
        for detail in result.details:
            for piece in str(detail).rstrip().splitlines():
                lines.append("%s%s" % (indent, piece))
    return lines


def remedy_lines(remedy: Optional[Remedy], commands: Tuple[str, ...], indent: str, verbose: bool) -> List[str]:
    """A remedy: what and why (always for a root cause, with -v otherwise), its COMMANDS, the link."""
    if remedy is None:
        return []
    lines = []
    if verbose:
        for text in (remedy.problem, remedy.why):
            lines += wrap(text, WIDTH, indent) or [indent]
    lines += ["%s%s" % (indent, command) if command.startswith("#") else "%s$ %s" % (indent, command)
              for command in commands]
    if remedy.link and verbose:
        lines.append("%ssee %s" % (indent, remedy.link))
    return lines
