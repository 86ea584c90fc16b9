"""A `model` report as a Markdown block for an issue: the verdict, the results, the operators without an MPS kernel
per release, the first remedy's commands and the JSON document; redacted by default. Every value from the report is
literal text (render/md.py)."""

from mps_doctor.model.report import ModelReport, report_document
from mps_doctor.render import md
from mps_doctor.render.commands import remedy_commands
from mps_doctor.render.markdown import VERSION, WORDS, json_block
from mps_doctor.render.redact import redact
from mps_doctor.render.safe import escaped_line
from mps_doctor.secrets import scrub


def render_model_markdown(report: ModelReport, redacted: bool = True) -> str:
    """A <details> block: summary, results table, predicted table, the root cause's commands, the JSON document."""
    home, user = report.facts.host.home, report.facts.host.user
    clean = (lambda text: scrub(redact(text, home, user))) if redacted else scrub
    commands = remedy_commands(report.plan_report(), "bash")
    from mps_doctor import __version__

    version = __version__ if VERSION.fullmatch(__version__) else "?"
    out = ["<details><summary>mps-doctor %s model: %s</summary>" % (version, md.html_prose(clean(report.verdict.summary))),
           "", "TARGET %s in %s, torch %s, device %s." % (
               md.code(clean(report.request.target.text)), md.code(clean(report.facts.target.python)),
               md.code(clean(report.release or "?")), md.code(report.model.device)), ""]
    out += md.table(("check", "status", "summary"), ((md.code(r.id, table=True), WORDS[r.status],
                                                       md.prose(clean(r.summary), table=True)) for r in report.results))
    prediction = report.prediction
    if report.model.device == "mps" and prediction is not None and prediction.coverage:
        out += ["", "Operators without an MPS kernel, per torch release (kernel table):", ""]
        out += md.table(("torch", "missing"), ((md.code(row.release, table=True),
                                                 ", ".join(md.code(op, table=True) for op in row.missing) or "none")
                                                for row in prediction.coverage))
    root = next((r for r in report.results if r.id == report.verdict.root_cause), None)
    if root is not None and commands.get(root.id):
        out += ["", "**Root cause** (%s): %s" % (md.code(root.id), md.prose(clean(root.summary))), ""]
        out += md.fence("\n".join(escaped_line(clean(command)) for command in commands[root.id]), "sh")
    out += ["", "Report:", ""]
    out += md.fence(clean(json_block(report_document(report, commands))), "json") + ["", "</details>"]
    return "\n".join(out) + "\n"
