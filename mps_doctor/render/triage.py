"""Renderers of a triage report: text for the terminal, JSON, and a Markdown reply a maintainer can post."""

import json
import re
from typing import List, Optional

from mps_doctor.checking.model import Status
from mps_doctor.render import md
from mps_doctor.render.commands import remedy_commands, report_document
from mps_doctor.render.redact import redact_names
from mps_doctor.render.safe import escaped_line, map_strings
from mps_doctor.report import Report
from mps_doctor.secrets import home_user_names, scrub
from mps_doctor.words import shorten

FULL_CHECK = ("mps-doctor check --format markdown",)
# GitHub rejects a comment over 65,536 characters (REST API "Create an issue comment": body too long); counted here in
# UTF-8 bytes, never fewer than characters, with room for the workflow's marker line and the notice of what was left out.
MAX_REPLY = 64000
# A link the reply may make live: one of the doctor's own, to a documentation or tracker page.
OWN_LINK = re.compile(r"https://[A-Za-z0-9.-]+/[A-Za-z0-9._~/#%?=&+-]*")
# A line for the tools that check a saved script (render/script.py writes it before `. venv/bin/activate`), not for
# someone reading a reply.
SCRIPT_DIRECTIVE = "# shellcheck "
# Line numbers listed per fact: enough to find it, not a list as long as the paste.
SHOWN_LINES = 5


def utf8_length(text: str) -> int:
    """The length of TEXT in UTF-8 bytes."""
    return len(text.encode("utf-8", errors="surrogatepass"))


def shown_lines(lines) -> str:
    """The first SHOWN_LINES line numbers of LINES, and how many more there are."""
    lines = list(lines)
    more = len(lines) - SHOWN_LINES
    return ", ".join(map(str, lines[:SHOWN_LINES])) + (" and %d more" % more if more > 0 else "")


def fact_rows(report: Report) -> List[str]:
    """'fact = value (line N, parser)' for every fact read from the paste."""
    rows = []
    for fact in (report.source or {}).get("facts", []):
        value = fact["value"]
        shown = ", ".join(map(str, value)) if isinstance(value, list) and fact["fact"] != "interpreter.version" else \
            ".".join(map(str, value)) if fact["fact"] == "interpreter.version" else value
        rows.append((fact["fact"], str(shown), shown_lines(fact["lines"]), fact["parser"]))
    return rows


def render_triage(report: Report, fmt: str, verbose: bool = False, color: bool = False, unicode: bool = True,
                  redacted: bool = True, fix: Optional[str] = None) -> str:
    """The triage report in FMT (text, json or markdown), without a secret in any of them (each string of the report
    passes the filter before it is placed; the paste itself was filtered before it was read). The text names FIX as
    the command that prints the plan for that machine (default: render.text.fix_command)."""
    report = map_strings(report, scrub)
    if fmt == "json":
        return json.dumps(report_document(report), indent=2) + "\n"
    if fmt == "plist":
        from mps_doctor.render.status import status_plist

        return status_plist(report_document(report), report.exit_code())
    if fmt == "markdown":
        if redacted:
            names = list((report.source or {}).get("home_users", [])) + home_user_names(
                json.dumps(report_document(report), ensure_ascii=False))
            report = map_strings(report, lambda text: redact_names(text, names))
        return render_reply(report)
    return render_triage_text(report, verbose, color, unicode, fix)


def render_triage_text(report: Report, verbose: bool, color: bool, unicode: bool, fix: Optional[str] = None) -> str:
    """What the paste said (facts with line numbers), then the layers as `check` shows them."""
    from mps_doctor.render.text import render_text

    source = report.source or {}
    count = source.get("lines", 0)
    read = "%d pasted line%s" % (count, "" if count == 1 else "s") if source else "the mps-doctor report in the paste"
    lines = ["mps-doctor %s triage: %s, device %s" % (report.tool_version, read, report.options.device)]
    lines += ["Device from: %s" % escaped_line(source["device_from"])] if source.get("device_from") else []
    lines += [TITLE_NOTE] if source.get("title") else []
    lines.append("")
    rows = [tuple(escaped_line(cell) for cell in row) for row in fact_rows(report)]
    if rows:
        lines.append("Read from the paste:")
        width = max(len(r[0]) for r in rows)
        lines += ["  %-*s  %s  (line %s, %s)" % (width, name, value if verbose else shorten(value, 90), where, parser)
                  for name, value, where, parser in rows]
    body = render_text(report, verbose=verbose, color=color, unicode=unicode, fix=fix).split("\n", 1)[1]
    # In a triage report the unnumbered results are the known messages found in the paste, and the advisories whose
    # facts the paste states (the others need the machine and are skipped).
    body = body.replace("\nAdvisories:\n", "\nKnown messages and advisories:\n")
    return "\n".join(lines) + "\n" + body


# A report that read the title (triage --title) numbers it line 1.
TITLE_NOTE = ("Line 1 is the issue's title, read because the text below it names no cause or leaves open what the title "
              "says; the text's lines count from 3.")


def render_reply(report: Report) -> str:
    """A reply to post on the issue: the verdict, the cause, the fix commands, then as much of what was read from the
    paste as fits one comment (MAX_REPLY). Every value from the paste is literal text (render/md.py)."""
    verdict = report.verdict
    root = report.result(verdict.root_cause) if verdict.root_cause else None
    head = ["**mps-doctor triage** (%s): %s" % (md.code(report.options.device), md.marked_prose(verdict.summary)), ""]
    device_from = (report.source or {}).get("device_from")
    if device_from:
        head += ["Why %s: %s." % (md.code(report.options.device), md.prose(device_from)), ""]
    if (report.source or {}).get("title"):
        head += [TITLE_NOTE, ""]
    if root is not None:
        head.append("**%s** (%s): %s" % ("Suspected cause" if verdict.suspected else "Cause", md.code(root.id),
                                          md.marked_prose(root.summary)))
        head += remedy_block(report, root)
    else:
        # Advisories the pasted facts fail (companions from another release) are said even when they are no cause.
        warnings = [r for r in report.results if r.layer is None and r.status == Status.WARN and r.remedy is not None]
        if (report.source or {}).get("unexplained_error"):
            error = report.source["unexplained_error"]
            head.append("The paste shows an error that mps-doctor does not know (line %d: %s), and nothing it shows of "
                        "the setup explains it; the layers it does not cover are listed below." % (
                            error["line"], md.code(error["text"])))
        elif warnings:
            head.append("Nothing in the paste shows a failing layer; the layers it does not cover are listed below.")
        else:
            head.append("Nothing in the paste shows a problem; the layers it does not cover are listed below.")
        for warning in warnings:
            head += ["", "**Also worth a look** (%s): %s" % (md.code(warning.id), md.marked_prose(warning.summary))]
            head += remedy_block(report, warning)
    layers = ["", "| layer | check | status | summary |", "| --- | --- | --- | --- |"]
    layers += ["| %d | %s | %s | %s |" % (result.layer, md.code(result.id, table=True), result.status.value,
                                          md.prose(result.summary, table=True))
               for result in report.results if result.layer is not None]
    tail = ["", "</details>", "", "For a full check on the machine itself (it also runs a training step on the device), "
            "with mps-doctor installed as its README says:", ""] + md.fence("\n".join(FULL_CHECK), "sh") + [""]
    evidence = []
    rows = fact_rows(report)
    if rows:
        evidence += ["| fact | value | line | from |", "| --- | --- | --- | --- |"]
        evidence += ["| %s | %s | %s | %s |" % (md.code(name, table=True), md.code(value, table=True), where,
                                                md.code(parser, table=True)) for name, value, where, parser in rows]
    for index, error in enumerate((report.source or {}).get("known_errors", [])):
        evidence += [""] if index == 0 else []
        evidence.append("- known message %s (line %d)" % (md.code(error["id"]), error["line"]))
    opening = ["", "<details><summary>What mps-doctor read from the paste</summary>", ""]
    budget = MAX_REPLY - utf8_length("\n".join(head + opening + layers + tail)) - 200
    kept = []
    for line in evidence:
        if utf8_length(line) + 1 > budget:
            break
        kept.append(line)
        budget -= utf8_length(line) + 1
    if len(kept) < len(evidence):
        kept += ["", "%d more lines of evidence are left out to fit one comment; `mps-doctor triage` on the text shows "
                 "them all." % (len(evidence) - len(kept))]
    return "\n".join(head + opening + kept + layers + tail)


def remedy_block(report: Report, result) -> List[str]:
    """The Markdown lines of RESULT's remedy: why, the fix commands for the pasted platform, the link."""
    if result.remedy is None:
        return []
    out = ["", md.marked_prose(result.remedy.why, line_start=True)]
    # The shell of the pasted platform: PowerShell on Windows, else a POSIX shell.
    shell = "powershell" if report.facts.host.system == "Windows" else "bash"
    lines = [escaped_line(line) for command in remedy_commands(report, shell).get(result.id, ()) for line in command.split("\n")
             if not line.startswith(SCRIPT_DIRECTIVE)]
    # A block of comments alone is no fix: the prose above says what to do.
    if any(not line.startswith("#") for line in lines):
        out += ["", "**Fix:**", ""] + md.fence("\n".join(lines), "powershell" if shell == "powershell" else "sh")
    if result.remedy.link:
        link = result.remedy.link
        out += ["", "More: %s" % (link if OWN_LINK.fullmatch(link) else md.code(link))]
    return out


def undecided(report: Report) -> List[str]:
    """Ids of the layers the paste could not decide."""
    return [r.id for r in report.results if r.layer is not None and r.status == Status.SKIP
            and r.summary.startswith("not in the pasted text")]
