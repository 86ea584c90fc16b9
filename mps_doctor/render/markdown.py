"""A paste-able Markdown block for a bug report, redacted by default."""

import json

from mps_doctor.checks.model import Status
from mps_doctor.env_summary import environment_summary
from mps_doctor.render.commands import remedy_commands
from mps_doctor.render.redact import redact
from mps_doctor.render.safe import UNSAFE, code_fence, markdown_cell, one_line
from mps_doctor.report import Report, report_to_dict

WORDS = {Status.PASS: "pass", Status.WARN: "⚠️ warn", Status.FAIL: "❌ fail", Status.SKIP: "skip", Status.ERROR: "error"}


def json_block(document: dict) -> str:
    """DOCUMENT as JSON that keeps non-ASCII text readable (so redaction sees it) and escapes every control
    character, so that the exact values replay and none reaches a terminal."""
    text = json.dumps(document, indent=1, ensure_ascii=False)
    return UNSAFE.sub(lambda m: json.dumps(m.group())[1:-1], text)


def render_markdown(report: Report, redacted: bool = True) -> str:
    """A <details> block with the verdict table, the root cause's remedy and the facts as JSON."""
    rows = ["| layer | check | status | summary |", "| --- | --- | --- | --- |"]
    for result in report.results:
        rows.append("| %s | `%s` | %s | %s |" % (
            result.layer if result.layer is not None else "advisory", one_line(result.id), WORDS[result.status],
            markdown_cell(result.summary)))
    out = ["<details><summary>mps-doctor %s: %s</summary>" % (markdown_cell(report.tool_version),
                                                            markdown_cell(report.verdict.summary)), ""]
    if report.facts.target.chosen_because:
        out += ["Diagnosed `%s`: %s." % (one_line(report.facts.target.python),
                                         markdown_cell(report.facts.target.chosen_because)), ""]
    out += rows
    root = report.result(report.verdict.root_cause) if report.verdict.root_cause else None
    commands = remedy_commands(report, "bash")
    if root is not None and root.remedy is not None:
        out += ["", "**Root cause** (`%s`): %s" % (one_line(root.id), markdown_cell(root.summary)), ""]
        out += code_fence("\n".join(one_line(command) for command in commands[root.id]), "sh")
    out += ["", "Environment:", ""] + ["- %s: %s" % (label, markdown_cell(value))
                                      for label, value in environment_summary(report.facts)]
    out += ["", "Report (save as report.json and replay with `mps-doctor check --from report.json`):", ""]
    out += code_fence(json_block(report_to_dict(report, commands)), "json") + ["", "</details>"]
    text = "\n".join(out) + "\n"
    if redacted:
        text = redact(text, report.facts.host.home, report.facts.host.user)
    return text
