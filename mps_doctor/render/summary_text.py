"""`summarize` as text for a terminal: every value from a report or a file name shown as one safe line."""

from typing import List, Sequence

from mps_doctor.fleet.summarize import VERSION_LABELS, Machine, Summary
from mps_doctor.render.safe import escaped_line
from mps_doctor.render.script import posix_quote
from mps_doctor.words import shorten, shorten_path

STATE_WORDS = {"ready": "ready", "not-ready": "not ready", "timed-out": "timed out",
               "doctor-failed": "incomplete (a check crashed)"}
LEFT_OUT_WORDS = {"bad": "not a readable report", "foreign": "not a check report", "triage": "a triage report",
                  "duplicate": "a duplicate"}
# The longest a value may be in a column but the last; the JSON format keeps every value whole.
CELL = 40


def plural(count: int, word: str) -> str:
    """'1 machine', '2 machines'."""
    return "%d %s%s" % (count, word, "" if count == 1 else "s")


def headline(summary: Summary) -> str:
    """'12 machines: 7 ready, 5 not ready; 2 files left out'."""
    states = ", ".join("%d %s" % (count, STATE_WORDS[state]) for state, count in summary.states) or "none readable"
    left = "; %s left out" % plural(len(summary.left_out), "file") if summary.left_out else ""
    return "%s: %s%s" % (plural(len(summary.machines), "machine"), states, left)


def fix_command(machine: Machine) -> str:
    """The command that prints the fix plan of MACHINE's report, its path quoted for a POSIX shell."""
    path = machine.path if not machine.path.startswith("-") else "./" + machine.path
    return "mps-doctor fix --from %s" % posix_quote(path)


def versions_line(counts) -> str:
    """'2.13.0 (5), 2.2.2 (1)'."""
    return ", ".join("%s (%d)" % (value, count) for value, count in counts)


def columns(rows: Sequence[Sequence[str]], indent: str = "  ") -> List[str]:
    """ROWS as aligned columns, each cell one safe line, of at most CELL characters but in the last column (where a
    command or a reason is never cut); the first column, a machine's file, keeps its end."""
    if not rows:
        return []
    cells = [[escaped_line(str(cell)) if i == len(row) - 1 else
              shorten_path(escaped_line(str(cell)), CELL) if i == 0 else shorten(escaped_line(str(cell)), CELL)
              for i, cell in enumerate(row)] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(cells[0]))]
    return [(indent + "  ".join(cell.ljust(width) for cell, width in zip(row, widths))).rstrip() for row in cells]


def machine_rows(summary: Summary) -> List[List[str]]:
    """The machines table: a header and one row per machine."""
    # The OS column already says the macOS version.
    labels = [label for label, _ in VERSION_LABELS
              if label != "macos" and any(label in dict(m.versions) for m in summary.machines)]
    header = ["machine", "verdict", "device", "root cause", "OS"] + [dict(VERSION_LABELS)[label] for label in labels]
    return [header] + [[m.name, m.state, m.device, m.root_cause or "-", m.os] +
                       [(m.version(label) or "unknown") if label in dict(m.versions) else "-" for label in labels]
                       for m in summary.machines]


def render_summary_text(summary: Summary) -> str:
    """The summary for a terminal: headline, machines, what to fix per group, checks, policy, versions, left out."""
    out = ["mps-doctor summary of %s" % headline(summary)]
    if summary.machines:
        out += ["", "Machines:"] + columns(machine_rows(summary))
    if summary.groups:
        out += ["", "What to fix, machines grouped by root cause (each command prints that machine's fix plan):"]
        for group in summary.groups:
            out.append("  %s, %s: %s" % (escaped_line(group.root_cause or "no root cause"),
                                         plural(len(group.machines), "machine"), escaped_line(group.title)))
            out += columns([[m.name, fix_command(m)] for m in group.machines], "    ")
    if summary.checks:
        out += ["", "Checks that fail or warn (machines):"]
        out += columns([[check_id, "%d failed" % failed, "%d warned" % warned] for check_id, failed, warned
                        in summary.checks])
    if summary.machines:
        out += ["", "Outside the team policy:"]
        out += columns([[m.name, "; ".join("%s: %s" % item for item in m.outside_policy)]
                        for m in summary.outside_policy]) or ["  none"]
        if summary.without_policy:
            out.append("  (%s checked without a team policy)" % plural(summary.without_policy, "machine"))
        out += ["", "Versions seen (machines):"]
        out += columns([[dict(VERSION_LABELS)[label], versions_line(counts)] for label, counts in summary.versions])
    if summary.left_out:
        out += ["", "Left out:"]
        out += columns([[item.name, "%s: %s" % (LEFT_OUT_WORDS[item.kind], item.reason)] for item in summary.left_out])
    return "\n".join(out) + "\n"
