"""`mps-doctor summarize`: many machines' saved JSON reports in one view (fleet/)."""

import sys

import click

from mps_doctor import exit_codes
from mps_doctor.commands.options import CONTEXT, format_option, output_option
from mps_doctor.commands.shared import fail
from mps_doctor.errors import DoctorError
from mps_doctor.output import write_output


@click.command("summarize", context_settings=CONTEXT, epilog=exit_codes.summarize_help_text())
@click.argument("paths", nargs=-1, required=True, metavar="REPORT.json...|DIR")
@format_option("text", "markdown", "json", help="markdown: for a ticket (each machine's home folder and user name redacted).")
@output_option()
def summarize(paths, fmt, output):
    """Summarize many machines' JSON reports (check --format json): verdicts, root causes, versions, the team policy,
    and the fix each group of machines needs. A DIR is searched for *.json files."""
    from mps_doctor.fleet.collect import read_reports
    from mps_doctor.fleet.summarize import summarize as summary_of
    from mps_doctor.render import summary_json, summary_markdown, summary_text

    renderers = {"text": summary_text.render_summary_text, "markdown": summary_markdown.render_summary_markdown,
                 "json": summary_json.render_summary_json}
    try:
        summary = summary_of(read_reports(paths))
        write_output(renderers[fmt](summary), output)
    except DoctorError as error:
        fail(error)
    sys.exit(summary.exit_code())
