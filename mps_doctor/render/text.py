"""The text report: a status mark per check, grouped by layer, the root cause first, a one-line summary."""

import shlex
from typing import List, Optional, Tuple

import click

from mps_doctor.checking.model import CHECK_FIRST, COMMAND_LINE_SKIP, CheckResult, Remedy, Status
from mps_doctor.checking.registry import all_checks
from mps_doctor.env_summary import environment_summary
from mps_doctor.render.commands import remedy_commands
from mps_doctor.render.safe import displayable, escaped_line
from mps_doctor.render.script import run_hint
from mps_doctor.report import NOT_SELECTED, Report
from mps_doctor.words import wrap

MARKS = {Status.PASS: "✓", Status.WARN: "!", Status.FAIL: "✗", Status.SKIP: "-", Status.ERROR: "☠", Status.TIMEOUT: "⏱"}
ASCII_MARKS = {Status.PASS: "ok", Status.WARN: "!!", Status.FAIL: "XX", Status.SKIP: "--", Status.ERROR: "!?",
               Status.TIMEOUT: "TO"}
# The heading of the root cause shown first, by its status.
ROOT_HEADINGS = {Status.FAIL: "Root cause", Status.TIMEOUT: "Timed out"}
# Prose is wrapped for reading, never inside a path or a `command` (words.wrap); commands never are, so that they
# paste whole.
WIDTH = 100
DELIBERATE_SKIPS = ("skipped by policy",)
COLORS = {Status.PASS: "green", Status.WARN: "yellow", Status.FAIL: "red", Status.SKIP: None, Status.ERROR: "magenta",
          Status.TIMEOUT: "yellow"}


def render_text(report: Report, verbose: bool = False, color: bool = False, unicode: bool = True,
                fix: Optional[str] = None) -> str:
    """The whole text report as one string (colour codes only when COLOR); no control character of the report's
    own strings reaches the output. FIX is the `mps-doctor fix` command it names (default: fix_command(REPORT))."""
    fix = fix or fix_command(report)
    commands = shown_commands(report)
    report = displayable(report)
    mark = marker(color, unicode)
    lines = header_lines(report)
    root = report.result(report.verdict.root_cause) if report.verdict.root_cause else None
    if root is not None and root.status in ROOT_HEADINGS:
        lines.append("")
        lines += root_cause_lines(root, commands[root.id], mark)
    # Without -v, what --select left out is one line, not a line per check.
    unselected = [] if verbose else [r for r in report.results if r.summary == NOT_SELECTED]
    results = [r for r in report.results if r not in unselected]
    layers = [r for r in results if r.layer is not None]
    policy_ids = {spec.id for spec in all_checks() if spec.policy}
    advisories = [r for r in results if r.layer is None and r.id not in policy_ids]
    policy = [r for r in results if r.id in policy_ids]
    lines.append("")
    lines.append("Layers (%s):" % report.options.device)
    width = max(len(r.id) for r in report.results) if report.results else 10
    # A failing or timed-out root cause shows its remedy above; a warning that is the root cause under --strict shows
    # it in place.
    shown_above = root if root is not None and root.status in ROOT_HEADINGS else None
    for result in layers:
        lines += result_lines(result, commands[result.id], mark, width, verbose, show_remedy=result is not shown_above)
    if unselected:
        lines.append("  %s    not selected (--select): %s; -v lists them" % (mark(Status.SKIP), counted(
            unselected, policy_ids)))
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
        lines.append(escaped_line(run_hint("To decide it, check that machine itself", "mps-doctor check")
                                  if root is not None and root.remedy is not None and root.remedy.key == CHECK_FIRST else
                                  run_hint("To print the commands that fix this", fix)))
    lines.append("")
    summary = report.verdict.summary
    if color:
        summary = click.style(summary, fg="green" if report.verdict.ready else "red", bold=True)
    lines.append(summary)
    return "\n".join(lines) + "\n"


def render_root_cause(report: Report, color: bool = False, unicode: bool = True, fix: Optional[str] = None) -> str:
    """The head of the text report: the target, the root cause with its remedy and the `fix` command FIX (default:
    fix_command(REPORT)); for a command that stops where `check` finds a root cause (bench without a working torch)."""
    commands = shown_commands(report)
    report = displayable(report)
    lines = header_lines(report)
    root = report.result(report.verdict.root_cause) if report.verdict.root_cause else None
    if root is not None and root.status in ROOT_HEADINGS:
        lines.append("")
        lines += root_cause_lines(root, commands[root.id], marker(color, unicode))
    lines += ["", escaped_line(run_hint("To print the commands that fix this", fix or fix_command(report)))]
    return "\n".join(lines) + "\n"


def shown_commands(report: Report):
    """The commands shown under each result, by result id: `fix`'s, one line each."""
    return {result_id: tuple(escaped_line(line) for command in spelled for line in command.split("\n")
                             if not line.startswith("# shellcheck"))
            for result_id, spelled in remedy_commands(report).items()}


def marker(color: bool, unicode: bool):
    """The function that draws a status's mark."""

    def mark(status: Status) -> str:
        glyph = "[%s]" % (MARKS if unicode else ASCII_MARKS)[status]
        return click.style(glyph, fg=COLORS[status], bold=True) if color and COLORS[status] else glyph

    return mark


def header_lines(report: Report) -> List[str]:
    """The target interpreter, its Python and the device; why that Python was chosen."""
    target = report.facts.target
    interp = target.interpreter
    python = "Python %s" % ".".join(map(str, interp.version)) if interp else "Python ?"
    if interp and interp.machine:
        python += " " + interp.machine
    lines = ["mps-doctor %s: %s (%s), device %s" % (report.tool_version, target.python, python, report.options.device)]
    if target.chosen_because:
        lines.append("Python chosen: %s" % target.chosen_because)
    return lines


def root_cause_lines(root: CheckResult, commands: Tuple[str, ...], mark) -> List[str]:
    """The root cause, its remedy in full and the data row it used."""
    lines = ["%s %s: %s" % (mark(root.status), ROOT_HEADINGS.get(root.status, "Root cause"), root.summary)]
    lines += remedy_lines(root.remedy, commands, "    ", verbose=True)
    if root.rule:
        lines.append("    data: %s" % root.rule)
    return lines


def fix_command(report: Report, doctor: Tuple[str, ...] = ("mps-doctor",), source: Optional[str] = None,
                extra: Tuple[str, ...] = ()) -> str:
    """`mps-doctor fix` (started as DOCTOR) for the same target and options as REPORT, then EXTRA (options the report
    does not record, as given): `--from SOURCE` (default: the saved report it replays, '-' for a paste), else the
    --python it probed; `--config` with the absolute path of the policy file the run read here and `--strict` when it
    was strict (Options.repeated), so that it plans as the run judged from any folder."""
    options = report.options
    pasted = report.source is not None
    source = source or options.replayed_from or ("-" if pasted else None)
    words = list(doctor) + ["fix"]
    words += ["--from", source] if source else ["--python", report.facts.target.python]
    # A paste's device was inferred from it, and is again.
    if options.requested_device != "auto" and not pasted:
        words += ["--device", options.requested_device]
    for device in options.required:
        words += ["--require-device", device]
    if options.quick:
        words.append("--quick")
    for check_id in options.select:
        words += ["--select", check_id]
    for check_id, reason in options.policy.skip:
        if reason == COMMAND_LINE_SKIP:
            words += ["--skip", check_id]
    words += options.repeated()
    return " ".join(shlex.quote(word) for word in words + list(extra))


def counted(results: List[CheckResult], policy_ids) -> str:
    """'9 layers, 10 advisories, 1 policy check': how many of RESULTS are of each kind."""
    kinds = (("layer", "layers", [r for r in results if r.layer is not None]),
             ("advisory", "advisories", [r for r in results if r.layer is None and r.id not in policy_ids]),
             ("policy check", "policy checks", [r for r in results if r.id in policy_ids]))
    return ", ".join("%d %s" % (len(group), one if len(group) == 1 else many) for one, many, group in kinds if group)


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
    if result.remedy is not None and show_remedy and result.status in (Status.FAIL, Status.WARN, Status.ERROR,
                                                                       Status.TIMEOUT):
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
