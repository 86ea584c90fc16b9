"""What several commands do alike: fail with one line, spell this doctor in the commands they print, repeat the
options given, build a diagnosis request, and read --from."""

import os
import sys

import click

from mps_doctor.errors import DoctorError, UsageError
from mps_doctor.render.safe import escaped_line


def fail(error: DoctorError) -> "NoReturn":  # noqa: F821
    """Print ERROR as one line on stderr and exit with its code."""
    click.echo("mps-doctor: error: %s" % escaped_line(str(error)), err=True)
    sys.exit(error.exit_code)


def local_doctor(which=None):
    """This mps-doctor as typed in a shell here once it has exited: `mps-doctor` when that name on PATH is this very
    console script, and not only because an ephemeral runner (uvx) put its cache first on PATH; else its absolute
    path, or `<python> -m mps_doctor` (plan.doctor_command())."""
    import shutil

    from mps_doctor.probe.default_target import ephemeral_environment
    from mps_doctor.remedies.plan import doctor_command

    command = doctor_command()
    found = (which or shutil.which)("mps-doctor")
    if len(command) == 1 and found and os.path.abspath(found) == command[0] and not ephemeral_environment(
            os.path.dirname(os.path.dirname(command[0]))):
        return ("mps-doctor",)
    return command


def given(ctx, names) -> tuple:
    """The options NAMES of this command as its command line gave them, in the order of NAMES, as words for a command
    that repeats them."""
    params = {param.name: param for param in ctx.command.params}
    words = []
    for param in (params[name] for name in names):
        if ctx.get_parameter_source(param.name).name != "COMMANDLINE":
            continue
        flag, value = max(param.opts, key=len), ctx.params[param.name]
        for one in (value if param.multiple else (value,)):
            if param.is_flag:
                words += [flag] if one else []
            else:
                words += [flag, "%g" % one if isinstance(one, float) else str(one)]
    return tuple(words)


def diagnosis_request(ctx, **fields):
    """A DiagnosisRequest from a command's options (keywords named as its fields); a --device or --quick left at its
    default is None, so that a replayed report's own value applies."""
    from mps_doctor.diagnosis import DiagnosisRequest

    for name in ("device", "quick"):
        if ctx.get_parameter_source(name).name == "DEFAULT":
            fields[name] = None
    return DiagnosisRequest(**fields)


def read_from(from_report, python, device, title=None):
    """(the triage report, None) when --from names pasted text (with the issue's TITLE, as triage reads it), (None, the
    bytes read) when it names a JSON report (stdin, '-', is read once, here), (None, None) without --from or with
    --python (which --from excludes)."""
    if not from_report or python:
        return None, None
    from mps_doctor.inputs import embedded_report, is_json_document, read_input

    data = read_input(from_report, sys.stdin, "--from %s" % from_report)
    if is_json_document(data):
        return None, data
    text = data.decode("utf-8", errors="replace")
    report = embedded_report(text)
    if report is not None:
        return None, report
    from mps_doctor.triage.engine import triage

    try:
        return triage(text, device, title=title), None
    except UsageError:
        raise UsageError("--from %s: neither an mps-doctor JSON report nor pasted text it recognizes (collect_env, an "
                         "environment dump, an install log, a known error message)" % from_report)


def title_words(report) -> tuple:
    """`--title TEXT` for a command that repeats a triage: the title as the report kept it (one line, secrets
    replaced), only when the title was read; else nothing."""
    title = ((report.source or {}).get("title") or {}).get("text") if report is not None else None
    return ("--title", title) if title else ()
