"""Errors that end a command with a one-line message and a documented exit code."""

from mps_doctor import exit_codes


class DoctorError(Exception):
    """A failure the user can act on; `exit_code` is one of exit_codes."""

    exit_code = exit_codes.DOCTOR_FAILED


class UsageError(DoctorError):
    """Bad options or unreadable input (exit 2)."""

    exit_code = exit_codes.USAGE


class ReportFormatError(UsageError):
    """A report file that is not JSON, not an mps-doctor report, or of an unknown schema version."""


class TargetPythonError(UsageError):
    """--python names something that does not exist, cannot run, or is not a Python."""
