"""`mps-doctor check`: probe this machine (or re-read a saved report or a paste), run the checks, show the verdict."""

import json
import os
import sys

import click

from mps_doctor import exit_codes
from mps_doctor.commands.options import CONTEXT, REPORT_FORMATS, diagnosis_options, report_options
from mps_doctor.commands.shared import diagnosis_request, fail, given, local_doctor, read_from, title_words
from mps_doctor.errors import DoctorError, UsageError
from mps_doctor.output import stdout_is_unicode, to_stdout, use_color, write_output

# Formats for other programs (CI test reports, metrics), from a probe or a saved report only.
MACHINE_FORMATS = ("junit", "prometheus", "plist")


@click.command("check", context_settings=CONTEXT, epilog=exit_codes.help_text())
@diagnosis_options(strict_help="Warnings make the exit code 1 too.")
@report_options(formats=REPORT_FORMATS + MACHINE_FORMATS, format_help="junit: a JUnit XML test report for CI; prometheus: "
                "gauges for node_exporter's textfile collector; plist: a flat status for osquery's plist table and the "
                "MDM scripts (install/mdm). docs/report-format.md.")
@click.option("--no-github", is_flag=True, help="In GitHub Actions, write no step summary and no ::error/::warning "
              "annotations (written there by default).")
@click.pass_context
def check(ctx, device, python, fmt, output, from_report, title, quick, strict, timeout, verbose, no_color, no_redact, no_github,
          config, select_ids, skip_ids, required):
    """Check whether PyTorch can train on the device from this Python, layer by layer."""
    from mps_doctor.diagnosis import diagnose
    from mps_doctor.render.progress import status_line
    from mps_doctor.render.text import fix_command

    try:
        pasted, data = read_from(from_report, python, device, title)
        if pasted is not None:
            from mps_doctor.render.triage import render_triage

            if fmt in ("junit", "prometheus"):
                raise UsageError("--format %s needs a probe or a saved JSON report, not pasted text" % fmt)
            fix = fix_command(pasted, local_doctor(), from_report, given(ctx, ("device",)) + title_words(pasted))
            write_output(render_triage(pasted, fmt, verbose, to_stdout(output) and use_color(no_color),
                                       stdout_is_unicode(), not no_redact, fix), output)
            # check's 0 means ready: the work on the device ran and passed, which a paste can never show.
            sys.exit(exit_codes.NOT_READY)
        with status_line(sys.stderr, os.environ, enabled=not from_report) as progress:
            report = diagnose(diagnosis_request(ctx, device=device, python=python, from_report=from_report,
                                                from_data=data, quick=quick, timeout=timeout, config=config,
                                                select_ids=select_ids, skip_ids=skip_ids, required=required,
                                                strict=strict, on_frame=progress))
        fix = fix_command(report, local_doctor(), extra=given(ctx, ("timeout",)))
        write_output(render(report, fmt, verbose, to_stdout(output) and use_color(no_color), not no_redact, fix), output)
        if not no_github:
            from mps_doctor.render.github import publish

            publish(report, os.environ, sys.stderr)
    except DoctorError as error:
        fail(error)
    sys.exit(report.exit_code())


def render(report, fmt: str, verbose: bool, color: bool, redacted: bool, fix: str) -> str:
    """The report in FMT; the text names FIX as the command that prints the fix plan."""
    if fmt == "json":
        from mps_doctor.render.commands import report_document

        return json.dumps(report_document(report), indent=2) + "\n"
    if fmt == "markdown":
        from mps_doctor.render.markdown import render_markdown

        return render_markdown(report, redacted=redacted)
    if fmt in MACHINE_FORMATS:
        from mps_doctor.render import junit, prometheus, status

        if fmt == "plist":
            from mps_doctor.render.commands import report_document

            return status.status_plist(report_document(report), report.exit_code())
        return junit.render_junit(report) if fmt == "junit" else prometheus.render_prometheus(report)
    from mps_doctor.render.text import render_text

    return render_text(report, verbose=verbose, color=color, unicode=stdout_is_unicode(), fix=fix)
