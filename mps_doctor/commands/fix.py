"""`mps-doctor fix`: the commands that fix what `check` finds, for this setup; it never runs them."""

import os
import sys

import click

from mps_doctor import exit_codes
from mps_doctor.commands.options import CONTEXT, diagnosis_options, output_option
from mps_doctor.commands.shared import diagnosis_request, fail, given, local_doctor, read_from, title_words
from mps_doctor.errors import DoctorError, UsageError
from mps_doctor.output import write_output

# The options of fix that its printed re-run repeats, in this order (--device only for a saved report or a paste).
PLAN_OPTIONS = ("shell", "manager", "device", "torch_pin", "index_url", "pypi", "timeout")


@click.command("fix", context_settings=CONTEXT, epilog="\b\nExit codes: 0 a plan was printed, nothing to fix, or no "
               "command fixes it (the report says what to do); 2 usage error or unreadable input; 3 the doctor "
               "failed.\nmps-doctor never runs these commands itself.")
@click.option("--print-commands", is_flag=True, help="Print only the commands, as a script with # comments.")
@click.option("--shell", type=click.Choice(("zsh", "bash", "fish")), help="Shell to write for (default: from $SHELL).")
@click.option("--manager", type=click.Choice(("pip", "uv", "conda")), help="Package manager (default: detected).")
@diagnosis_options(strict_help="Warnings make the verdict not ready, as with check --strict; the plan's closing check "
                   "is strict too.")
@click.option("--torch", "torch_pin", metavar="VERSION", help="Install exactly this torch (torchvision is paired from "
              "the release table) instead of the newest that fits; it must meet the team's policy.")
@click.option("--index-url", metavar="URL", help="Package index for torch, instead of the one mps-doctor picks.")
@click.option("--pypi", is_flag=True, help="Install torch from the default index (no --index-url).")
@output_option()
@click.pass_context
def fix(ctx, print_commands, shell, manager, device, python, from_report, title, torch_pin, index_url, pypi, quick, timeout,
        strict, output, config, select_ids, skip_ids, required):
    """The exact, ordered, safe commands that fix what `check` finds, for this setup."""
    from mps_doctor.diagnosis import diagnose
    from mps_doctor.remedies.plan import build_plan, pinned_release
    from mps_doctor.render.progress import status_line
    from mps_doctor.render.script import render_explained, render_script
    from mps_doctor.render.text import fix_command

    try:
        if index_url and pypi:
            raise UsageError("--index-url and --pypi cannot be combined")
        if torch_pin is not None:
            pinned_release(torch_pin)
        report, data = read_from(from_report, python, device, title)
        if report is None:
            with status_line(sys.stderr, os.environ, enabled=not from_report) as progress:
                report = diagnose(diagnosis_request(ctx, device=device, python=python, from_report=from_report,
                                                    from_data=data, quick=quick, timeout=timeout, config=config,
                                                    select_ids=select_ids, skip_ids=skip_ids, required=required,
                                                    strict=strict, on_frame=progress))
        plan = build_plan(report, manager=manager, shell=shell, torch_pin=torch_pin,
                          index="" if pypi else index_url)
        repeated = tuple(name for name in PLAN_OPTIONS if name != "device" or report.source is not None)
        again = fix_command(report, local_doctor(), from_report, given(ctx, repeated) + title_words(report) +
                            ("--print-commands",))
        write_output(render_script(plan) if print_commands else render_explained(plan, again), output)
    except DoctorError as error:
        fail(error)
    sys.exit(exit_codes.READY)
