"""A paste-able Markdown block for a bug report, redacted by default."""

import json

from mps_doctor.checks.model import Status
from mps_doctor.environment import environment_summary
from mps_doctor.render.redact import redact
from mps_doctor.report import Report, report_to_dict

WORDS = {Status.PASS: "pass", Status.WARN: "⚠️ warn", Status.FAIL: "❌ fail", Status.SKIP: "skip", Status.ERROR: "error"}


def render_markdown(report: Report, redacted: bool = True) -> str:
    """A <details> block with the verdict table, the root cause's remedy and the facts as JSON."""
    rows = ["| layer | check | status | summary |", "| --- | --- | --- | --- |"]
    for result in report.results:
        rows.append("| %s | `%s` | %s | %s |" % (
            result.layer if result.layer is not None else "advisory", result.id, WORDS[result.status],
            result.summary.replace("|", "\\|")))
    out = ["<details><summary>mps-doctor %s: %s</summary>" % (report.tool_version, report.verdict.summary), ""]
    if report.facts.target.chosen_because:
        out += ["Diagnosed `%s`: %s." % (report.facts.target.python, report.facts.target.chosen_because), ""]
    out += rows
    root = report.result(report.verdict.root_cause) if report.verdict.root_cause else None
    if root is not None and root.remedy is not None:
        out += ["", "**Root cause** (`%s`): %s" % (root.id, root.summary), "", "```sh"] + list(root.remedy.commands) + ["```"]
    out += ["", "Environment:", ""] + ["- %s: %s" % (label, value.replace("|", "\\|"))
                                      for label, value in environment_summary(report.facts)]
    document = json.dumps(report_to_dict(report), indent=1)
    out += ["", "Report (save as report.json and replay with `mps-doctor check --from report.json`):", "",
            "```json", document, "```", "", "</details>"]
    text = "\n".join(out) + "\n"
    if redacted:
        text = redact(text, report.facts.host.home, report.facts.host.user)
    return text
