"""The exit codes of every mps-doctor command: a released contract, never renumbered."""

READY = 0
NOT_READY = 1
USAGE = 2
DOCTOR_FAILED = 3

TABLE = (
    (READY, "ready: every required check passed (warnings allowed unless --strict)"),
    (NOT_READY, "not ready: a check failed (with --strict, also a warning)"),
    (USAGE, "usage error or unreadable input (bad option, missing or invalid file, not a Python)"),
    (DOCTOR_FAILED, "the doctor itself failed (a check crashed, or an internal error)"),
)


def help_text():
    """The exit-code table as plain lines for --help."""
    return "\b\nExit codes:\n" + "\n".join("  %d  %s" % row for row in TABLE)
