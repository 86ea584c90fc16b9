"""`mps-doctor policy show` and `policy init`: the team policy in [tool.mps-doctor] of the project's pyproject.toml."""

import os
import sys

import click

from mps_doctor.commands.options import CONTEXT, check_timeout_option, config_option, device_option, format_option, python_option
from mps_doctor.commands.shared import fail
from mps_doctor.errors import DoctorError


@click.group("policy", context_settings=CONTEXT)
def policy():
    """The team policy in [tool.mps-doctor] of the project's pyproject.toml (docs/policy.md)."""


@policy.command("show", context_settings=CONTEXT)
@config_option()
@format_option("text", "json")
def policy_show(config, fmt):
    """Print the effective policy and where each value came from."""
    from mps_doctor.policy import load_policy
    from mps_doctor.render.policy_show import policy_json, policy_text

    try:
        effective = load_policy(config)
    except DoctorError as error:
        fail(error)
    click.echo(policy_json(effective) if fmt == "json" else policy_text(effective), nl=False)


@policy.command("init", context_settings=CONTEXT)
@python_option()
@device_option()
@check_timeout_option()
def policy_init(python, device, timeout):
    """Print a commented starting policy for this machine's current state (paste it into pyproject.toml)."""
    from mps_doctor.diagnosis import DiagnosisRequest, diagnose
    from mps_doctor.policy_init import render_policy
    from mps_doctor.render.progress import status_line

    try:
        with status_line(sys.stderr, os.environ) as progress:
            report = diagnose(DiagnosisRequest(device=device, python=python, quick=True, timeout=timeout,
                                               on_frame=progress))
    except DoctorError as error:
        fail(error)
    click.echo(render_policy(report), nl=False)
