"""`mps-doctor triage`: the same diagnosis from text pasted from a machine you cannot touch."""

import sys

import click

from mps_doctor.commands.options import CONTEXT, device_option, report_options, title_option
from mps_doctor.commands.shared import fail, given, local_doctor, title_words
from mps_doctor.errors import DoctorError
from mps_doctor.output import stdout_is_unicode, to_stdout, use_color, write_output


@click.command("triage", context_settings=CONTEXT, epilog="\b\nExit codes: 0 no problem found in the text, 1 a problem "
               "found, 2 usage error or nothing recognizable in the text, 3 the doctor failed.")
@click.argument("file", required=False, metavar="[FILE|-]")
@device_option(help="Device the report is about: auto is inferred from the text (its OS and messages).")
@title_option()
@report_options(format_help="markdown: a reply to post on the issue (home folders redacted).")
@click.pass_context
def triage(ctx, file, device, title, fmt, output, verbose, no_color, no_redact):
    """Diagnose pasted text from a machine you cannot touch: collect_env, environment dumps, install logs, errors.

    Reads FILE, or stdin with - or no argument (a GitHub issue body as it is: Markdown, <details>, prompts).
    """
    from mps_doctor.render.text import fix_command
    from mps_doctor.render.triage import render_triage
    from mps_doctor.triage.engine import exit_code, read_text
    from mps_doctor.triage.engine import triage as triage_text

    try:
        if file in (None, "-") and sys.stdin.isatty():
            click.echo("mps-doctor: reading pasted text from stdin (end with Ctrl-D)", err=True)
        report = triage_text(read_text(file, sys.stdin), device, title=title)
        fix = fix_command(report, local_doctor(), file or "-", given(ctx, ("device",)) + title_words(report))
        write_output(render_triage(report, fmt, verbose, use_color(no_color) and to_stdout(output), stdout_is_unicode(),
                                   not no_redact, fix), output)
    except DoctorError as error:
        fail(error)
    sys.exit(exit_code(report))
