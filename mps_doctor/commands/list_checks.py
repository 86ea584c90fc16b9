"""`mps-doctor list-checks`: every check id, its title, and its layer per device."""

import click

from mps_doctor.commands.options import CONTEXT, format_option


@click.command("list-checks", context_settings=CONTEXT)
@format_option("text", "json", "markdown")
def list_checks(fmt):
    """List every check id, its title, and the layers it belongs to per device (markdown: docs/checks.md's table)."""
    from mps_doctor.render.checks_doc import checks_json, checks_table, checks_text

    click.echo({"text": checks_text, "json": checks_json, "markdown": checks_table}[fmt](), nl=False)
