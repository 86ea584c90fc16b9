"""`summarize --format markdown`: the summary for a ticket or a GitHub comment, through the one Markdown builder
(render/md.py): every value from a report or a file name is literal text, each machine's home folder and user name
are redacted from what its report says."""

from typing import List

from mps_doctor.fleet.summarize import VERSION_LABELS, Machine, Summary
from mps_doctor.render import md
from mps_doctor.render.redact import redact
from mps_doctor.render.summary_text import LEFT_OUT_WORDS, STATE_WORDS, fix_command, headline, machine_rows, plural


def said_by(machine: Machine, text: str) -> str:
    """TEXT from MACHINE's report as prose, with that machine's home folder and user name redacted."""
    return md.prose(redact(text, machine.home, machine.user))


def fix_section(summary: Summary) -> List[str]:
    """One paragraph per group of machines sharing a root cause and fix, with each machine's fix command."""
    out = ["**What to fix**, machines grouped by root cause (each command prints that machine's fix plan):", ""]
    for group in summary.groups:
        first = group.machines[0]
        cause = md.code(group.root_cause) if group.root_cause else "no root cause"
        out += ["- %s, %s: %s" % (cause, plural(len(group.machines), "machine"), said_by(first, group.title))]
        out += ["  - %s: %s" % (md.code(m.name), md.code(fix_command(m))) for m in group.machines]
    return out + [""]


def checks_section(summary: Summary) -> List[str]:
    """The checks that fail or warn, with the number of machines each time."""
    rows = [[md.code(i, table=True), str(failed), str(warned)] for i, failed, warned in summary.checks]
    return ["**Checks that fail or warn**:", ""] + md.table(["check", "machines failed", "machines warned"], rows) + [""]


def policy_section(summary: Summary) -> List[str]:
    """The machines outside the team policy, with the policy checks they fail."""
    out = ["**Outside the team policy**:" + ("" if summary.outside_policy else " none."), ""]
    for machine in summary.outside_policy:
        out.append("- %s: %s" % (md.code(machine.name), "; ".join(
            "%s %s" % (md.code(check_id), said_by(machine, text)) for check_id, text in machine.outside_policy)))
    if summary.outside_policy:
        out.append("")
    if summary.without_policy:
        out += ["%s checked without a team policy." % plural(summary.without_policy, "machine").capitalize(), ""]
    return out


def versions_section(summary: Summary) -> List[str]:
    """The versions seen, with the number of machines each."""
    names = dict(VERSION_LABELS)
    return ["**Versions seen** (machines):", ""] + [
        "- %s: %s" % (names[label], ", ".join("%s (%d)" % (md.code(value), count) for value, count in counts))
        for label, counts in summary.versions] + [""]


def machines_section(summary: Summary) -> List[str]:
    """Every machine in a table, folded."""
    header, *rows = machine_rows(summary)
    cells = [[md.code(cell, table=True) if index != 1 else STATE_WORDS[cell] for index, cell in enumerate(row)]
             for row in rows]
    return ["<details><summary>All %s</summary>" % plural(len(summary.machines), "machine"), ""] + \
        md.table(header, cells) + ["", "</details>", ""]


def left_out_section(summary: Summary) -> List[str]:
    """The files left out, and why."""
    rows = [[md.code(item.name, table=True), LEFT_OUT_WORDS[item.kind], md.prose(item.reason, table=True)]
            for item in summary.left_out]
    return ["**Left out**:", ""] + md.table(["file", "what it is", "why"], rows) + [""]


def render_summary_markdown(summary: Summary) -> str:
    """The summary as Markdown: headline and verdict counts, the fix per group, policy, checks, versions, machines."""
    out = ["**mps-doctor summary** of %s" % headline(summary), ""]
    if summary.states:
        out += md.table(["verdict", "machines"], [[STATE_WORDS[state], str(count)] for state, count in summary.states])
        out.append("")
    if summary.groups:
        out += fix_section(summary)
    if summary.machines:
        out += policy_section(summary)
    if summary.checks:
        out += checks_section(summary)
    if summary.machines:
        out += versions_section(summary) + machines_section(summary)
    if summary.left_out:
        out += left_out_section(summary)
    return "\n".join(out).rstrip("\n") + "\n"
