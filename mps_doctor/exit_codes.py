"""The exit codes of every mps-doctor command: a released contract, never renumbered."""

import signal

READY = 0
NOT_READY = 1
USAGE = 2
DOCTOR_FAILED = 3

# A command ended by a signal exits as shells report one a signal killed: 128 + the signal's number.
KILLED_BY_SIGNAL_BASE = 128
# Ctrl-C (SIGINT, signal 2): 130.
INTERRUPTED = KILLED_BY_SIGNAL_BASE + int(signal.SIGINT)

TABLE = (
    (READY, "ready: the work on the device ran and passed, and so did every other required check (warnings allowed "
            "unless --strict)"),
    (NOT_READY, "not ready: a check failed, the probe ran out of --timeout, or no check showed the work on the device "
                "(with --strict, also a warning)"),
    (USAGE, "usage error, unreadable input or unwritable output (bad option, missing or invalid file, not a "
            "Python, a full disk)"),
    (DOCTOR_FAILED, "the doctor itself failed (a check crashed, or an internal error)"),
)

# `bench`: the same numbers, read for a measurement.
BENCH_TABLE = (
    (READY, "measured (a slower accelerator or a noisy measurement is a warning)"),
    (NOT_READY, "the accelerator or torch is not usable, or the run ran out of --timeout"),
    (USAGE, "usage error"),
    (DOCTOR_FAILED, "the doctor failed"),
)

# `summarize`: the same numbers, read for many machines' reports.
SUMMARIZE_TABLE = (
    (READY, "every file was a report (a duplicate aside) and every machine is ready"),
    (NOT_READY, "a machine is not ready (or timed out, or a check crashed there), or a file was left out as not a "
                "readable check report"),
    (USAGE, "usage error (a path that does not exist, a folder without a .json file, an unwritable --output)"),
    (DOCTOR_FAILED, "the doctor itself failed"),
)

# A reader that closes the pipe early (`mps-doctor list-checks | head -1`) is not a failure: the code stays the
# verdict's (0 for commands without one).
CLOSED_PIPE_NOTE = "A closed pipe (| head) does not change the code."


def help_text():
    """The exit-code table as plain lines for --help."""
    return "\b\nExit codes:\n" + "\n".join("  %d  %s" % row for row in TABLE) + "\n  " + CLOSED_PIPE_NOTE


def bench_help_text():
    """bench's exit codes as one sentence for its --help."""
    return "\b\nExit codes: " + ", ".join("%d %s" % row for row in BENCH_TABLE) + "."


def summarize_help_text():
    """summarize's exit codes as plain lines for its --help."""
    return "\b\nExit codes:\n" + "\n".join("  %d  %s" % row for row in SUMMARIZE_TABLE)
