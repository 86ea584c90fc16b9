"""In a GitHub Actions job (GITHUB_ACTIONS=true): `check` appends its Markdown report to the job's step summary
($GITHUB_STEP_SUMMARY) and prints `::error`/`::warning` workflow commands for what fails or warns, on stderr so that
stdout stays the report (the runner reads workflow commands from both streams: actions/runner,
src/Runner.Worker/Handlers/ScriptHandler.cs, one OutputManager per stream).

A value from outside cannot start another workflow command: a command is one line, and every value is escaped as
actions/toolkit escapes it (packages/core/src/command.ts: escapeData for the message, escapeProperty, which also
escapes `:` and `,`, for a property such as `title`), after its control characters are shown as escapes.
"""

from typing import List, Mapping, Optional

from mps_doctor.checking.model import Status
from mps_doctor.render.commands import remedy_commands
from mps_doctor.render.junit import readable
from mps_doctor.render.markdown import render_markdown
from mps_doctor.render.redact import redact
from mps_doctor.render.safe import escaped_line, visible
from mps_doctor.report import Report
from mps_doctor.secrets import scrub

ERRORS = (Status.FAIL, Status.TIMEOUT, Status.ERROR)


def escape_data(text: str) -> str:
    """A workflow command's message, escaped as actions/toolkit's escapeData does."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value, escaped as actions/toolkit's escapeProperty does."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(kind: str, title: str, message: str) -> str:
    """`::KIND title=TITLE::MESSAGE` on one line, whatever TITLE and MESSAGE hold."""
    return "::%s title=%s::%s" % (kind, escape_property(escaped_line(title)), escape_data(visible(message)))


def in_actions(environ: Mapping[str, str]) -> bool:
    """Whether this runs in a GitHub Actions job (the runner sets GITHUB_ACTIONS=true)."""
    return environ.get("GITHUB_ACTIONS") == "true"


def annotations(report: Report) -> List[str]:
    """One workflow command per failing, timed-out or crashed check (an error), and per warning the policy does not
    accept (an error when warnings count, else a warning); one error with the verdict when it is not ready and no
    check says why. Home folder and user name are redacted, as in the Markdown report."""
    home, user = report.facts.host.home, report.facts.host.user
    commands = remedy_commands(report, "bash")
    lines = []
    for result in report.results:
        if result.status == Status.WARN and not result.accepted:
            kind = "error" if report.options.strict_warnings else "warning"
        elif result.status in ERRORS:
            kind = "error"
        else:
            continue
        message = [result.summary]
        if result.remedy is not None:
            message.append("Fix: %s" % (result.remedy.title or result.remedy.problem))
        message += readable(commands.get(result.id, ()))
        text = scrub(redact("\n".join(message), home, user))
        lines.append(workflow_command(kind, "mps-doctor: %s" % result.id, text))
    if not report.verdict.ready and not any(line.startswith("::error") for line in lines):
        lines.append(workflow_command("error", "mps-doctor: %s" % report.verdict.state,
                                      scrub(redact(report.verdict.summary, home, user))))
    return lines


def publish(report: Report, environ: Mapping[str, str], stderr) -> None:
    """In GitHub Actions only: append the Markdown report to $GITHUB_STEP_SUMMARY (when set) and print the
    annotations on STDERR. A summary that cannot be written is a warning annotation, never a failure of the check."""
    if not in_actions(environ):
        return
    problem: Optional[str] = None
    path = environ.get("GITHUB_STEP_SUMMARY")
    if path:
        try:
            with open(path, "a", encoding="utf-8") as handle:
                handle.write(render_markdown(report) + "\n")
        except (OSError, UnicodeEncodeError) as exc:
            problem = "cannot append the report to GITHUB_STEP_SUMMARY: %s" % (getattr(exc, "strerror", None) or exc)
    lines = annotations(report)
    if problem is not None:
        lines.append(workflow_command("warning", "mps-doctor", problem))
    try:
        stderr.write("".join(line + "\n" for line in lines))
        stderr.flush()
    except (AttributeError, OSError, ValueError):  # no stderr, or a closed one: the report itself was written
        pass
