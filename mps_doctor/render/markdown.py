"""A paste-able Markdown block for a bug report, redacted by default."""

import json
import re

from mps_doctor.checking.model import Status
from mps_doctor.env_summary import environment_summary
from mps_doctor.render import md
from mps_doctor.render.commands import remedy_commands
from mps_doctor.render.redact import redact
from mps_doctor.render.safe import UNSAFE, escaped_line
from mps_doctor.report import Report, report_to_dict
from mps_doctor.secrets import scrub

# A release number as mps-doctor writes its own (PEP 440 public versions); anything else in a report is shown as ?.
VERSION = re.compile(r"\d+(?:\.\d+){0,3}(?:(?:a|b|rc|\.dev|\.post)\d+)?")
WORDS = {Status.PASS: "pass", Status.WARN: "⚠️ warn", Status.FAIL: "❌ fail", Status.SKIP: "skip", Status.ERROR: "error",
         Status.TIMEOUT: "⏱️ timed out"}


def json_block(document: dict) -> str:
    """DOCUMENT as JSON that keeps non-ASCII text readable (so redaction sees it) and escapes every control
    character, so that the exact values replay and none reaches a terminal."""
    text = json.dumps(document, indent=1, ensure_ascii=False)
    return UNSAFE.sub(lambda m: json.dumps(m.group())[1:-1], text)


def render_markdown(report: Report, redacted: bool = True) -> str:
    """A <details> block with the verdict table, the root cause's remedy and the facts as JSON. Every value from the
    report is literal text (render/md.py); redaction and the secret filter apply to each before it is placed."""
    home, user = report.facts.host.home, report.facts.host.user
    clean = (lambda text: scrub(redact(text, home, user))) if redacted else scrub
    rows = ["| layer | check | status | summary |", "| --- | --- | --- | --- |"]
    for result in report.results:
        rows.append("| %s | %s | %s | %s |" % (
            result.layer if result.layer is not None else "advisory", md.code(result.id, table=True),
            WORDS[result.status], md.prose(clean(result.summary), table=True)))
    version = report.tool_version if VERSION.fullmatch(report.tool_version or "") else "?"
    out = ["<details><summary>mps-doctor %s: %s</summary>" % (version, md.html_prose(clean(report.verdict.summary))), ""]
    if report.facts.target.chosen_because:
        out += ["Diagnosed %s: %s." % (md.code(clean(report.facts.target.python)),
                                       md.prose(clean(report.facts.target.chosen_because))), ""]
    out += rows
    root = report.result(report.verdict.root_cause) if report.verdict.root_cause else None
    commands = remedy_commands(report, "bash")
    if root is not None and root.remedy is not None:
        heading = "Timed out" if root.status == Status.TIMEOUT else "Root cause"
        out += ["", "**%s** (%s): %s" % (heading, md.code(root.id), md.prose(clean(root.summary))), ""]
        out += md.fence("\n".join(escaped_line(clean(command)) for command in commands[root.id]), "sh")
    out += ["", "Environment:", ""] + ["- %s: %s" % (label, md.prose(clean(value)))
                                      for label, value in environment_summary(report.facts)]
    out += ["", "Report (save as report.json and replay with `mps-doctor check --from report.json`):", ""]
    out += md.fence(clean(json_block(report_to_dict(report, commands))), "json") + ["", "</details>"]
    return "\n".join(out) + "\n"
