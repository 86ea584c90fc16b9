"""Renderers of a triage report: text for the terminal, JSON, and a Markdown reply a maintainer can post."""

import json
import re
from typing import List

from mps_doctor.checks.model import Status
from mps_doctor.render.commands import remedy_commands, report_document
from mps_doctor.render.safe import code_fence, one_line
from mps_doctor.report import Report

FULL_CHECK = ("mps-doctor check --format markdown",)
# How the commands for the pasted machine start mps-doctor: by name, since it runs there, not here.
PASTED_MACHINE_DOCTOR = ("mps-doctor",)
# Home folders in pasted paths: /Users/NAME, /home/NAME, C:\Users\NAME or C:/Users/NAME (redacted in the reply).
HOME_PATHS = re.compile(r"(/Users/|/home/|[A-Za-z]:[\\/]{1,2}Users[\\/]{1,2})([^/\\\s'\"]+)")


def redact_paths(text: str) -> str:
    """TEXT with the user name in home-folder paths replaced by <user>."""
    return HOME_PATHS.sub(lambda m: m.group(1) + "<user>", text)


def fact_rows(report: Report) -> List[str]:
    """'fact = value (line N, parser)' for every fact read from the paste."""
    rows = []
    for fact in (report.source or {}).get("facts", []):
        value = fact["value"]
        shown = ", ".join(map(str, value)) if isinstance(value, list) and fact["fact"] != "interpreter.version" else \
            ".".join(map(str, value)) if fact["fact"] == "interpreter.version" else value
        rows.append((fact["fact"], str(shown), ", ".join(map(str, fact["lines"])), fact["parser"]))
    return rows


def render_triage(report: Report, fmt: str, verbose: bool = False, color: bool = False, unicode: bool = True,
                  redacted: bool = True) -> str:
    """The triage report in FMT (text, json or markdown)."""
    if fmt == "json":
        return json.dumps(report_document(report, doctor=PASTED_MACHINE_DOCTOR), indent=2) + "\n"
    if fmt == "markdown":
        text = render_reply(report)
        return redact_paths(text) if redacted else text
    return render_triage_text(report, verbose, color, unicode)


def render_triage_text(report: Report, verbose: bool, color: bool, unicode: bool) -> str:
    """What the paste said (facts with line numbers), then the layers as `check` shows them."""
    from mps_doctor.render.text import render_text

    source = report.source or {}
    lines = ["mps-doctor %s triage: %d pasted lines, device %s" % (report.tool_version, source.get("lines", 0),
                                                                   report.options.device), ""]
    rows = fact_rows(report)
    if rows:
        lines.append("Read from the paste:")
        width = max(len(r[0]) for r in rows)
        lines += ["  %-*s  %s  (line %s, %s)" % (width, name, value if verbose or len(value) <= 90 else value[:87] + "...",
                                                 where, parser) for name, value, where, parser in rows]
    body = render_text(report, verbose=verbose, color=color, unicode=unicode).split("\n", 1)[1]
    # In a triage report every advisory is skipped (they need the machine); the unnumbered results are the known
    # messages found in the paste.
    body = body.replace("\nAdvisories:\n", "\nKnown messages in the paste:\n")
    body = body.replace("The commands for your setup, in order: mps-doctor fix (with the same --python, --device or --from)",
                        "The commands for that machine, in order: mps-doctor fix --from THE-SAME-FILE")
    return "\n".join(lines) + "\n" + body


def render_reply(report: Report) -> str:
    """A reply to post on the issue: the cause, the fix commands, the facts read, and how to run a full check."""
    verdict = report.verdict
    root = report.result(verdict.root_cause) if verdict.root_cause else None
    out = ["**mps-doctor triage** (%s): %s" % (report.options.device, verdict.summary), ""]
    if root is not None:
        out.append("**Cause** (`%s`): %s" % (root.id, root.summary))
        if root.remedy is not None:
            out += ["", root.remedy.why]
            commands = remedy_commands(report, "bash", PASTED_MACHINE_DOCTOR)[root.id]
            if commands:
                out += ["", "**Fix:**", ""] + code_fence(
                    "\n".join(one_line(line) for command in commands for line in command.split("\n")), "sh")
            if root.remedy.link:
                out += ["", "More: %s" % root.remedy.link]
    else:
        out.append("Nothing in the paste shows a problem; the layers it does not cover are listed below.")
    out += ["", "<details><summary>What mps-doctor read from the paste</summary>", ""]
    rows = fact_rows(report)
    if rows:
        out += ["| fact | value | line | from |", "| --- | --- | --- | --- |"]
        out += ["| %s | %s | %s | %s |" % tuple(cell.replace("|", "\\|") for cell in row) for row in rows]
    for error in (report.source or {}).get("known_errors", []):
        out.append("- known message `%s` (line %d)" % (error["id"], error["line"]))
    out += ["", "| layer | check | status | summary |", "| --- | --- | --- | --- |"]
    for result in report.results:
        if result.layer is not None:
            out.append("| %d | `%s` | %s | %s |" % (result.layer, result.id, result.status.value,
                                                  result.summary.replace("|", "\\|")))
    out += ["", "</details>", "", "For a full check on the machine itself (it also runs a training step on the device), with mps-doctor "
            "installed as its README says:",
            "", "```sh"] + list(FULL_CHECK) + ["```", ""]
    return "\n".join(out)


def undecided(report: Report) -> List[str]:
    """Ids of the layers the paste could not decide."""
    return [r.id for r in report.results if r.layer is not None and r.status == Status.SKIP
            and r.summary.startswith("not in the pasted text")]
